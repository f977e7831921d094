import type { Knex } from 'knex';
import { isForeignKeyViolation } from '../db/pgErrors';
import { DISPLAY_PREFIX_LENGTH, API_KEY_PREFIX, hashSecret, newApiKeyId, randomSecret } from './secrets';
import type { KeyRecord, NewRefreshToken, RotateOutcome, TokenStore } from './tokens';

/**
 * Organisations, supplier grants, API keys and refresh tokens (migration 0005). Every function
 * takes a knex handle that may be a transaction (docs/spec/STYLE.md #8); only `rotateRefreshToken` opens its
 * own when given the root handle, because rotation must be atomic.
 */

export type AuthStoreErrorCode = 'organisation_not_found' | 'supplier_not_found';

export class AuthStoreError extends Error {
  constructor(
    readonly code: AuthStoreErrorCode,
    message: string = code,
  ) {
    super(message);
    this.name = 'AuthStoreError';
  }
}

/** Creates the organisation; false when one with this name exists (nothing changed). */
export async function createOrganisation(db: Knex, name: string): Promise<boolean> {
  const inserted = await db('organisations').insert({ name }).onConflict('name').ignore().returning('name');
  return inserted.length > 0;
}

export async function listOrganisations(db: Knex): Promise<{ name: string; suppliers: string[]; createdAt: Date }[]> {
  const rows = (await db('organisations as o')
    .leftJoin('organisation_suppliers as g', 'g.organisation', 'o.name')
    .groupBy('o.name', 'o.created_at')
    .orderBy('o.name')
    .select('o.name', 'o.created_at', db.raw(`coalesce(array_agg(g.import_supplier ORDER BY g.import_supplier) FILTER (WHERE g.import_supplier IS NOT NULL), '{}') AS suppliers`))) as {
    name: string;
    created_at: Date;
    suppliers: string[];
  }[];
  return rows.map((r) => ({ name: r.name, suppliers: r.suppliers, createdAt: r.created_at }));
}

async function organisationExists(db: Knex, name: string): Promise<boolean> {
  return !!(await db('organisations').where({ name }).first('name'));
}

/** Grants the organisation the import supplier (idempotent). */
export async function grantSupplier(db: Knex, organisation: string, supplier: string): Promise<void> {
  if (!(await organisationExists(db, organisation))) throw new AuthStoreError('organisation_not_found', `No organisation ${organisation}.`);
  try {
    await db('organisation_suppliers').insert({ organisation, import_supplier: supplier }).onConflict(['organisation', 'import_supplier']).ignore();
  } catch (err) {
    // The organisation was checked just above: a foreign-key failure now is the supplier's.
    if (isForeignKeyViolation(err)) {
      const missingOrg = !(await organisationExists(db, organisation));
      throw missingOrg
        ? new AuthStoreError('organisation_not_found', `No organisation ${organisation}.`)
        : new AuthStoreError('supplier_not_found', `No import supplier ${supplier}.`);
    }
    throw err;
  }
}

/** Removes a grant; false when there was none. */
export async function revokeSupplier(db: Knex, organisation: string, supplier: string): Promise<boolean> {
  const n = await db('organisation_suppliers').where({ organisation, import_supplier: supplier }).delete();
  return n > 0;
}

/** Issues a key: the returned `key` is the only time it exists outside the caller's hands. */
export async function issueApiKey(db: Knex, organisation: string, opts: { label?: string; revealBankDetails?: boolean } = {}): Promise<{ id: string; key: string }> {
  if (!(await organisationExists(db, organisation))) throw new AuthStoreError('organisation_not_found', `No organisation ${organisation}.`);
  const key = randomSecret(API_KEY_PREFIX);
  const id = newApiKeyId();
  try {
    await db('api_keys').insert({
      id,
      organisation,
      label: opts.label ?? null,
      prefix: key.slice(0, DISPLAY_PREFIX_LENGTH),
      key_hash: hashSecret(key),
      reveal_bank_details: opts.revealBankDetails === true,
    });
  } catch (err) {
    if (isForeignKeyViolation(err)) throw new AuthStoreError('organisation_not_found', `No organisation ${organisation}.`);
    throw err;
  }
  return { id, key };
}

interface KeyRow {
  id: string;
  organisation: string;
  label: string | null;
  prefix: string;
  created_at: Date;
  revoked_at: Date | null;
  last_used_at: Date | null;
  reveal_bank_details: boolean;
}

export async function listApiKeys(
  db: Knex,
  organisation?: string,
): Promise<{ id: string; organisation: string; label: string | null; prefix: string; createdAt: Date; revokedAt: Date | null; lastUsedAt: Date | null; revealBankDetails: boolean }[]> {
  const q = db<KeyRow>('api_keys').select('id', 'organisation', 'label', 'prefix', 'created_at', 'revoked_at', 'last_used_at', 'reveal_bank_details').orderBy([{ column: 'organisation' }, { column: 'created_at' }, { column: 'id' }]);
  if (organisation !== undefined) q.where({ organisation });
  return (await q).map((r) => ({
    id: r.id,
    organisation: r.organisation,
    label: r.label,
    prefix: r.prefix,
    createdAt: r.created_at,
    revokedAt: r.revoked_at,
    lastUsedAt: r.last_used_at,
    revealBankDetails: r.reveal_bank_details,
  }));
}

/** Gives a key the permission to read bank details in clear, or takes it away; false when no such unrevoked key. */
export async function setKeyRevealsBankDetails(db: Knex, id: string, reveal: boolean): Promise<boolean> {
  return (await db('api_keys').where({ id }).whereNull('revoked_at').update({ reveal_bank_details: reveal })) > 0;
}

/**
 * Revokes a key and every refresh token issued from it; false when no such unrevoked key.
 * Access tokens already issued stop working at once: the authenticator checks the key.
 */
export async function revokeApiKey(db: Knex, id: string): Promise<boolean> {
  const n = await db('api_keys').where({ id }).whereNull('revoked_at').update({ revoked_at: db.fn.now() });
  if (n > 0) await db('refresh_tokens').where({ key_id: id }).whereNull('revoked_at').update({ revoked_at: db.fn.now() });
  return n > 0;
}

/** What the authenticator needs for one request: the key's state and its organisation's grant. */
export interface KeyGrant {
  organisation: string;
  revoked: boolean;
  suppliers: string[];
  /** Whether the key may read bank details in clear (`?reveal=bank_details`; migration 0026). */
  revealBankDetails: boolean;
  /** Asked with a refresh family: whether that family has been revoked (reuse detected, or the key revoked). */
  familyRevoked?: boolean;
}

/**
 * One indexed query (primary key + grant primary key; with a family, also an EXISTS on the
 * refresh_tokens family index).
 */
export async function findKeyGrant(db: Knex, keyId: string, family?: string): Promise<KeyGrant | null> {
  const row = (await db('api_keys as k')
    .leftJoin('organisation_suppliers as g', 'g.organisation', 'k.organisation')
    .where('k.id', keyId)
    .groupBy('k.id', 'k.organisation', 'k.revoked_at', 'k.reveal_bank_details')
    .first(
      'k.organisation',
      'k.revoked_at',
      'k.reveal_bank_details',
      db.raw(`coalesce(array_agg(g.import_supplier) FILTER (WHERE g.import_supplier IS NOT NULL), '{}') AS suppliers`),
      ...(family === undefined
        ? []
        : [db.raw('EXISTS (SELECT 1 FROM refresh_tokens r WHERE r.family = ?::uuid AND r.key_id = k.id AND r.revoked_at IS NOT NULL) AS family_revoked', [family])]),
    )) as { organisation: string; revoked_at: Date | null; reveal_bank_details: boolean; suppliers: string[]; family_revoked?: boolean } | undefined;
  if (!row) return null;
  const grant: KeyGrant = { organisation: row.organisation, revoked: row.revoked_at !== null, suppliers: row.suppliers, revealBankDetails: row.reveal_bank_details === true };
  if (family !== undefined) grant.familyRevoked = row.family_revoked === true;
  return grant;
}

const toKeyRecord = (r: { id: string; organisation: string; revoked_at: Date | null }): KeyRecord => ({
  id: r.id,
  organisation: r.organisation,
  revokedAt: r.revoked_at,
});

/** Everything authentication reads: the token service's storage and the grant of a key. */
export interface AuthStore extends TokenStore {
  findKeyGrant(keyId: string, family?: string): Promise<KeyGrant | null>;
}

/** The PostgreSQL implementation of the authentication storage (the API's production wiring). */
export function dbAuthStore(db: Knex): AuthStore {
  return { ...dbTokenStore(db), findKeyGrant: (keyId, family) => findKeyGrant(db, keyId, family) };
}

/** The PostgreSQL implementation of the token service's storage. */
export function dbTokenStore(db: Knex): TokenStore {
  return {
    async findKeyByHash(keyHash) {
      const r = await db('api_keys').where({ key_hash: keyHash }).first('id', 'organisation', 'revoked_at');
      return r ? toKeyRecord(r) : null;
    },
    async findKey(id) {
      const r = await db('api_keys').where({ id }).first('id', 'organisation', 'revoked_at');
      return r ? toKeyRecord(r) : null;
    },
    async markKeyUsed(id, at) {
      await db('api_keys').where({ id }).update({ last_used_at: at });
    },
    async insertRefreshToken(keyId, t: NewRefreshToken) {
      await db('refresh_tokens').insert({ jti: t.jti, token_hash: t.tokenHash, key_id: keyId, family: t.jti, expires_at: t.expiresAt });
    },
    async rotateRefreshToken(tokenHash, next, now): Promise<RotateOutcome> {
      const run = async (trx: Knex): Promise<RotateOutcome> => {
        // The conditional UPDATE is the lock: of two concurrent presentations only one matches.
        const [used] = (await trx('refresh_tokens')
          .where({ token_hash: tokenHash })
          .whereNull('used_at')
          .whereNull('revoked_at')
          .where('expires_at', '>', now)
          .update({ used_at: now, replaced_by: next.jti })
          .returning(['key_id', 'family'])) as { key_id: string; family: string }[];
        if (used) {
          await trx('refresh_tokens').insert({ jti: next.jti, token_hash: next.tokenHash, key_id: used.key_id, family: used.family, expires_at: next.expiresAt });
          return { status: 'rotated', keyId: used.key_id, family: used.family };
        }
        const found = await trx('refresh_tokens').where({ token_hash: tokenHash }).first('family', 'used_at', 'revoked_at', 'expires_at');
        if (!found) return { status: 'unknown' };
        if (found.used_at === null && found.revoked_at === null) return { status: 'expired' };
        // Presented again after use: someone else may hold a copy. Revoke the whole family, so
        // neither the thief nor the owner can go on refreshing; the owner falls back to the key.
        await trx('refresh_tokens').where({ family: found.family }).whereNull('revoked_at').update({ revoked_at: now });
        return { status: 'reused' };
      };
      return db.isTransaction ? run(db) : db.transaction(run);
    },
  };
}
