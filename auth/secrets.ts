import crypto from 'node:crypto';

/** Recognisable prefixes: a key or refresh token found in a log or a repository is easy to spot. */
export const API_KEY_PREFIX = 'dik_';
export const REFRESH_TOKEN_PREFIX = 'dirt_';
/** Characters of a key kept for display (`dik_` + 8): identifies a key, useless for calling. */
export const DISPLAY_PREFIX_LENGTH = API_KEY_PREFIX.length + 8;

const SECRET_BYTES = 32;

/** 32 random bytes, base64url, behind a recognisable prefix. */
export function randomSecret(prefix: string): string {
  return prefix + crypto.randomBytes(SECRET_BYTES).toString('base64url');
}

/**
 * SHA-256 hex of a secret. A fast, unsalted hash is enough here (and allows lookup by hash):
 * the secrets are 256 random bits, so there is no dictionary to try and no brute force that a
 * slow hash would slow down; a password hash would only add latency to every exchange.
 */
export function hashSecret(secret: string): string {
  return crypto.createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function newApiKeyId(): string {
  return `key_${crypto.randomBytes(8).toString('hex')}`;
}
