// auth/'s surface for the other features (docs/architecture.md, "Each feature's surface"):
// lint holds another feature's imports of auth/ to this file.
export { deleteRefreshTokens, refreshTokenCandidates, refreshTokensDue } from './retentionStore';
