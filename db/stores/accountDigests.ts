import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import { accountDigest } from '../../account/canonical';
import { validationRulesVersion } from '../../account/fingerprint';
import { loadAccountsByExternal } from './accountStore';

/**
 * The digest of each account as stored, kept on its accounts row (migration 0016; docs/bulk-migration.md,
 * "Stored digests"): `<form>:sha256:<hex>`, where `<form>` names the code that computed it. A
 * stored digest is used only when its form is this process's: a build with another canonical form
 * or read-back (or another version of the libraries they call) computes the digest afresh. The
 * triggers of migration 0016 forget a digest whenever a row it was computed from changes.
 */

let form: string | undefined;

/**
 * A hash of the code the digest depends on, read once per process: account/ (the canonical form
 * and the normalisation it shares with the validator, with its libraries' versions:
 * validationRulesVersion) and the read-back (this folder's account files).
 */
export function digestForm(): string {
  if (form !== undefined) return form;
  const hash = crypto.createHash('sha256').update(validationRulesVersion()).update('\0');
  for (const name of fs.readdirSync(__dirname).sort()) {
    if (/^account.*\.(js|ts)$/.test(name) && !name.endsWith('.d.ts')) hash.update(name).update('\0').update(fs.readFileSync(path.join(__dirname, name))).update('\0');
  }
  form = hash.digest('base64url').slice(0, 16);
  return form;
}

/** The digest part of a stored value of this form, or null (none, or of another form). */
function ofThisForm(stored: unknown): string | null {
  if (typeof stored !== 'string') return null;
  const prefix = `${digestForm()}:`;
  return stored.startsWith(prefix) ? stored.slice(prefix.length) : null;
}

/**
 * The digest of each of these accounts of one supplier as stored (absent: no account): the stored
 * digest where there is one of this form, else read back from the tables (accountStore
 * loadAccountsByExternal) and hashed (account/canonical.ts accountDigest), and then stored for the
 * next time on every accounts row this transaction could lock (`FOR UPDATE SKIP LOCKED`: one a
 * writer holds is answered without storing; its trigger forgets the digest anyway).
 *
 * `trx` must be a transaction: the lock is taken before the rows are read and held until the digest
 * is stored, which is what keeps a concurrent writer from leaving a digest of older rows behind
 * (migration 0016). Also called by the create, in its own transaction, for the account it wrote.
 */
export async function accountDigests(trx: Knex.Transaction, importSupplier: string, externalAccountNumbers: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (externalAccountNumbers.length === 0) return out;
  const rows = (await trx('accounts')
    .select('id', 'external_account_number', 'stored_digest')
    .where({ import_supplier: importSupplier })
    .whereIn('external_account_number', [...externalAccountNumbers])) as { id: number | string; external_account_number: string; stored_digest: string | null }[];
  const missing: { id: number; external: string }[] = [];
  for (const r of rows) {
    const digest = ofThisForm(r.stored_digest);
    if (digest !== null) out.set(r.external_account_number, digest);
    else missing.push({ id: Number(r.id), external: r.external_account_number });
  }
  if (missing.length === 0) return out;
  const locked = (await trx('accounts')
    .select('id')
    .whereIn(
      'id',
      missing.map((m) => m.id),
    )
    .orderBy('id')
    .forUpdate()
    .skipLocked()) as { id: number | string }[];
  const lockedIds = new Set(locked.map((l) => Number(l.id)));
  const accounts = await loadAccountsByExternal(
    trx,
    importSupplier,
    missing.map((m) => m.external),
  );
  const store: { id: number; digest: string }[] = [];
  for (const m of missing) {
    const account = accounts.get(m.external);
    if (!account) continue;
    const digest = accountDigest(account);
    out.set(m.external, digest);
    if (lockedIds.has(m.id)) store.push({ id: m.id, digest: `${digestForm()}:${digest}` });
  }
  if (store.length > 0) {
    await trx.raw(`UPDATE accounts a SET stored_digest = v.digest FROM unnest(?::bigint[], ?::text[]) AS v(id, digest) WHERE a.id = v.id`, [
      store.map((s) => s.id),
      store.map((s) => s.digest),
    ]);
  }
  return out;
}
