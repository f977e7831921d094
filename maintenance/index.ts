// maintenance/'s surface for the other features (docs/architecture.md, "Each feature's surface"):
// lint holds another feature's imports of maintenance/ to this file.
export { setAsideCounts } from './setAside';
