import type { Context, Middleware } from 'koa';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/logger';
import { HttpError } from '../http/errors';
import type { Principal } from '../http/principal';
import type { AuthStore, KeyGrant } from './store';
import type { TokenService } from './tokens';
import { JwtError } from './jwt';

/** Sent with every 401: the scheme integrators use (spec: `Authorization: Token <token>`). */
const CHALLENGE = { 'WWW-Authenticate': 'Token' };
/** The cache never grows past this many keys (there are few keys; this only bounds abuse). */
const MAX_CACHED_KEYS = 10_000;

export interface AuthenticatorOptions {
  /** Where a key's revocation state and grant are read (dbAuthStore in production). */
  store: Pick<AuthStore, 'findKeyGrant'>;
  config: Pick<Config, 'auth'>;
  tokens: TokenService;
  /** How long a key's revocation state and grant may be reused; default config.auth.grantCacheMs. */
  grantCacheMs?: number;
  now?: () => number;
}

/**
 * Reads `Authorization: Token <jwt>` (also `JWT <jwt>`, `Bearer <jwt>` and the bare token),
 * verifies the access token, then checks its API key is not revoked and reads the organisation's
 * granted suppliers. Sets `ctx.state.principal`.
 *
 * Freshness: the key state and grant are read from PostgreSQL (one primary-key query, ~0.2 ms)
 * and reused for at most `grantCacheMs` (default 1 s) per key and refresh family, so a revoked
 * key, grant or refresh family takes effect within that time on every replica, while a bulk
 * client's stream of calls costs one query per key and family per second instead of one per call.
 * The family (the token's `fam` claim) is checked in the same query (an EXISTS on the
 * refresh_tokens family index): a family revoked by reuse detection, or with its key, refuses
 * every access token issued from it with 401 `authentication_failed`.
 */
export function createAuthenticator(opts: AuthenticatorOptions): Middleware {
  const { tokens } = opts;
  const ttl = opts.grantCacheMs ?? opts.config.auth.grantCacheMs;
  const now = opts.now ?? Date.now;
  const cache = new Map<string, { grant: KeyGrant | null; at: number }>();

  // Cached per key and refresh family: a bulk client refreshing its token hourly has one entry live.
  const grantOf = async (keyId: string, family: string | undefined): Promise<KeyGrant | null> => {
    const slot = family === undefined ? keyId : `${keyId} ${family}`;
    const hit = cache.get(slot);
    if (hit && now() - hit.at < ttl) return hit.grant;
    const grant = await opts.store.findKeyGrant(keyId, family);
    if (ttl > 0) {
      if (cache.size >= MAX_CACHED_KEYS) cache.clear();
      cache.set(slot, { grant, at: now() });
    }
    return grant;
  };

  return async (ctx, next) => {
    const token = credentialOf(ctx);
    if (!token) throw new HttpError('not_authenticated', 'Authentication credentials were not provided.', {}, CHALLENGE);
    let claims;
    try {
      claims = tokens.verifyAccessToken(token);
    } catch (err) {
      if (!(err instanceof JwtError)) throw err;
      const detail = err.reason === 'expired' ? 'The token has expired; obtain a new one.' : 'The token is not valid.';
      throw new HttpError('authentication_failed', detail, {}, CHALLENGE);
    }
    const grant = await grantOf(claims.sub, claims.fam);
    if (!grant || grant.revoked || grant.organisation !== claims.org) {
      throw new HttpError('authentication_failed', 'The API key of this token has been revoked.', {}, CHALLENGE);
    }
    if (grant.familyRevoked) {
      throw new HttpError('authentication_failed', 'The refresh tokens this token was issued with have been revoked; obtain a new one with the API key.', {}, CHALLENGE);
    }
    const principal: Principal = { organisation: grant.organisation, keyId: claims.sub, suppliers: new Set(grant.suppliers), revealBankDetails: grant.revealBankDetails };
    ctx.state.principal = principal;
    const log = ctx.state.log as Logger | undefined;
    if (log) ctx.state.log = log.child({ organisation: principal.organisation, keyId: principal.keyId });
    return next();
  };
}

const SCHEMES = /^(?:Token|JWT|Bearer)\s+(\S+)\s*$/i;

/** The token of the Authorization header, or undefined when there is none. */
export function credentialOf(ctx: Pick<Context, 'get'>): string | undefined {
  const header = ctx.get('authorization').trim();
  if (!header) return undefined;
  const m = SCHEMES.exec(header);
  if (m) return m[1];
  // A bare token: a single word (a scheme name alone, or a scheme we do not know, is not one).
  return /^\S+$/.test(header) && !/^(Token|JWT|Bearer)$/i.test(header) ? header : undefined;
}
