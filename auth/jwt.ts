import crypto from 'node:crypto';

/**
 * Compact JWS with HS256 only, over node:crypto.
 *
 * Why not `jose` (so not a dependency): jose 6 is published as ES modules only. Node 20.19+ loads it with
 * require(esm), but jest 30 on Node 20 cannot (its module registry refuses ESM from
 * node_modules unless jest.config.js transforms it), so every test of this path would fail. The
 * part of JWT we need is small and fixed: one algorithm, one key, no key discovery — which also
 * removes the classic JWT pitfalls (alg "none", algorithm confusion) by construction. The
 * signature is compared in constant time. See docs/authentication.md.
 */

export interface JwtClaims {
  sub: string;
  iat: number;
  exp: number;
  jti: string;
  iss: string;
  [claim: string]: unknown;
}

export type JwtFailure = 'malformed' | 'bad_signature' | 'expired' | 'not_yet_valid' | 'wrong_issuer' | 'bad_lifetime';

export class JwtError extends Error {
  constructor(readonly reason: JwtFailure) {
    super(`token rejected: ${reason}`);
    this.name = 'JwtError';
  }
}

const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');
/** Clock skew tolerated between replicas when checking iat. */
const LEEWAY_SECONDS = 30;

function mac(key: string, input: string): Buffer {
  return crypto.createHmac('sha256', key).update(input).digest();
}

export function signJwt(claims: JwtClaims, key: string): string {
  const body = `${HEADER}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${body}.${mac(key, body).toString('base64url')}`;
}

const B64URL = /^[A-Za-z0-9_-]+$/;

/**
 * Verifies signature, issuer and lifetime; returns the claims or throws JwtError.
 *
 * The signature must be the canonical base64url of the MAC (no trailing bits set: a second
 * spelling of the same signature is refused), and `iat`/`exp` whole seconds with
 * `0 < exp - iat <= maxLifetimeSeconds` — the lifetime this service issues (AUTH_TOKEN_TTL_SECONDS),
 * so that no token, however it was made, outlives that (`exp` in 2100 or 1e308 is refused).
 */
export function verifyJwt(token: string, key: string, opts: { issuer: string; nowSeconds: number; maxLifetimeSeconds: number }): JwtClaims {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every((p) => B64URL.test(p))) throw new JwtError('malformed');
  const [h, p, s] = parts as [string, string, string];
  let header: unknown;
  let claims: Partial<JwtClaims>;
  try {
    header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8'));
    claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as Partial<JwtClaims>;
  } catch {
    throw new JwtError('malformed');
  }
  // Only HS256 is ever accepted, whatever the header says: no algorithm confusion, no "none".
  if (!header || typeof header !== 'object' || (header as { alg?: unknown }).alg !== 'HS256') throw new JwtError('malformed');
  const expected = mac(key, `${h}.${p}`);
  const given = Buffer.from(s, 'base64url');
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) throw new JwtError('bad_signature');
  // Buffer.from ignores the unused low bits of the last character: 'QX' and 'QR' decode alike.
  if (given.toString('base64url') !== s) throw new JwtError('bad_signature');
  if (!claims || typeof claims !== 'object' || typeof claims.sub !== 'string' || !Number.isSafeInteger(claims.exp) || !Number.isSafeInteger(claims.iat)) {
    throw new JwtError('malformed');
  }
  if (claims.iss !== opts.issuer) throw new JwtError('wrong_issuer');
  const lifetime = (claims.exp as number) - (claims.iat as number);
  if (lifetime <= 0 || lifetime > opts.maxLifetimeSeconds) throw new JwtError('bad_lifetime');
  if ((claims.exp as number) <= opts.nowSeconds) throw new JwtError('expired');
  if ((claims.iat as number) > opts.nowSeconds + LEEWAY_SECONDS) throw new JwtError('not_yet_valid');
  return claims as JwtClaims;
}
