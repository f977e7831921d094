import crypto from 'node:crypto';
import { hashSecret, randomSecret, REFRESH_TOKEN_PREFIX } from './secrets';
import { JwtClaims, JwtError, signJwt, verifyJwt } from './jwt';
import { ConfigError, SIGNING_KEY_REQUIRED } from '../lib/config';

/**
 * Token issuance for the GraphQL `obtainKrakenToken` mutation: an API key or a refresh token in,
 * a short-lived access JWT and a rotated refresh token out. Storage is behind `TokenStore`
 * (auth/store.ts `dbTokenStore` for PostgreSQL; unit tests use an in-memory fake).
 */

/** The Kraken error codes integrators already handle (GraphQL `extensions.errorCode`). */
export const TOKEN_ERRORS = {
  'KT-CT-1139': 'Authentication failed.',
  'KT-CT-1135': 'Please make sure the refresh token is correct.',
  'KT-CT-1134': 'The refresh token has expired.',
} as const;
export type TokenErrorCode = keyof typeof TOKEN_ERRORS;

export class TokenError extends Error {
  constructor(readonly code: TokenErrorCode) {
    super(TOKEN_ERRORS[code]);
    this.name = 'TokenError';
  }
}

export const TOKEN_ISSUER = 'data-import';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface KeyRecord {
  id: string;
  organisation: string;
  revokedAt: Date | null;
}

export interface NewRefreshToken {
  jti: string;
  tokenHash: string;
  expiresAt: Date;
}

export type RotateOutcome =
  | { status: 'rotated'; keyId: string; family: string }
  | { status: 'unknown' }
  | { status: 'expired' }
  /** Presented after it was used (or its family was revoked): the store revoked the family. */
  | { status: 'reused' };

export interface TokenStore {
  findKeyByHash(keyHash: string): Promise<KeyRecord | null>;
  findKey(id: string): Promise<KeyRecord | null>;
  markKeyUsed(id: string, at: Date): Promise<void>;
  /** Stores the first token of a new family. */
  insertRefreshToken(keyId: string, token: NewRefreshToken): Promise<void>;
  /**
   * Atomically: the token with this hash, if unused, unrevoked and unexpired at `now`, becomes
   * used and replaced by `next` (same key, same family). A second presentation revokes the family.
   */
  rotateRefreshToken(tokenHash: string, next: NewRefreshToken, now: Date): Promise<RotateOutcome>;
}

export interface TokenServiceOptions {
  /** AUTH_SIGNING_KEY: required (lib/config.ts checks its length and that it is not a published one). */
  signingKey: string | undefined;
  tokenTtlSeconds: number;
  refreshTtlSeconds: number;
  now?: () => Date;
}

export interface IssuedToken {
  token: string;
  refreshToken: string;
  /** Unix time (seconds) at which the refresh token expires. */
  refreshExpiresIn: number;
  payload: JwtClaims;
}

export interface AccessClaims extends JwtClaims {
  org: string;
  /**
   * The refresh family the token was issued with (the jti of the family's first refresh token):
   * the authenticator refuses the token once that family is revoked. Tokens signed before this
   * claim existed carry none and are checked by their key only (they expire within the TTL).
   */
  fam?: string;
}

export interface TokenService {
  obtainWithApiKey(apiKey: string): Promise<IssuedToken>;
  obtainWithRefreshToken(refreshToken: string): Promise<IssuedToken>;
  /** Signature, issuer and expiry only; whether the key is still valid is the caller's check. */
  verifyAccessToken(token: string): AccessClaims;
}

export function createTokenService(store: TokenStore, opts: TokenServiceOptions): TokenService {
  const now = opts.now ?? (() => new Date());
  // No key, no tokens: there is no built-in key to fall back to (a key in the code is everyone's).
  const signingKey = opts.signingKey;
  if (!signingKey) throw new ConfigError('AUTH_SIGNING_KEY', SIGNING_KEY_REQUIRED);

  const newRefresh = (at: Date): { secret: string; record: NewRefreshToken } => {
    const secret = randomSecret(REFRESH_TOKEN_PREFIX);
    return {
      secret,
      record: { jti: crypto.randomUUID(), tokenHash: hashSecret(secret), expiresAt: new Date(at.getTime() + opts.refreshTtlSeconds * 1000) },
    };
  };

  const accessToken = (key: KeyRecord, at: Date, refresh: { secret: string; record: NewRefreshToken }, family: string): IssuedToken => {
    const iat = Math.floor(at.getTime() / 1000);
    const payload: AccessClaims = {
      sub: key.id,
      org: key.organisation,
      iss: TOKEN_ISSUER,
      iat,
      exp: iat + opts.tokenTtlSeconds,
      jti: crypto.randomUUID(),
      fam: family,
    };
    return {
      token: signJwt(payload, signingKey),
      refreshToken: refresh.secret,
      refreshExpiresIn: Math.floor(refresh.record.expiresAt.getTime() / 1000),
      payload,
    };
  };

  return {
    async obtainWithApiKey(apiKey) {
      // Same answer for unknown and revoked keys: nothing to learn by probing.
      const key = apiKey ? await store.findKeyByHash(hashSecret(apiKey)) : null;
      if (!key || key.revokedAt) throw new TokenError('KT-CT-1139');
      const at = now();
      const refresh = newRefresh(at);
      await store.insertRefreshToken(key.id, refresh.record);
      await store.markKeyUsed(key.id, at);
      // A new family: its id is the jti of its first refresh token (auth/store.ts).
      return accessToken(key, at, refresh, refresh.record.jti);
    },

    async obtainWithRefreshToken(refreshToken) {
      if (!refreshToken) throw new TokenError('KT-CT-1135');
      const at = now();
      const refresh = newRefresh(at);
      const outcome = await store.rotateRefreshToken(hashSecret(refreshToken), refresh.record, at);
      if (outcome.status === 'expired') throw new TokenError('KT-CT-1134');
      if (outcome.status !== 'rotated') throw new TokenError('KT-CT-1135');
      const key = await store.findKey(outcome.keyId);
      // A revoked key's refresh tokens die with it.
      if (!key || key.revokedAt) throw new TokenError('KT-CT-1135');
      await store.markKeyUsed(key.id, at);
      return accessToken(key, at, refresh, outcome.family);
    },

    verifyAccessToken(token) {
      const claims = verifyJwt(token, signingKey, { issuer: TOKEN_ISSUER, nowSeconds: Math.floor(now().getTime() / 1000), maxLifetimeSeconds: opts.tokenTtlSeconds });
      if (typeof claims.org !== 'string') throw new JwtError('malformed');
      if (claims.fam !== undefined && (typeof claims.fam !== 'string' || !UUID.test(claims.fam))) throw new JwtError('malformed');
      return claims as AccessClaims;
    },
  };
}
