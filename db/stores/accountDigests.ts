import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import { accountDigest } from '../../account/canonical';
import { validationRulesFiles, validationRulesVersion } from '../../account/fingerprint';
import { hashFiles, sourceClosure } from '../../lib/sourceHash';
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
 * The files the digest of an account as stored depends on: the canonical form and the validator's
 * files it shares (validationRulesFiles), and the storage, write and read-back, from the account
 * store: this folder's account files and what they import (platformTables.ts, which derives the
 * platform's tables from account/platformAccount.json; ledgerForm.ts, which stores the top-level
 * ledger form; unnestInsert.ts…), by lib/sourceHash.ts.
 */
export function digestFormFiles(): string[] {
  const stores = fs.readdirSync(__dirname).filter((n) => /^account.*\.(js|ts)$/.test(n) && !n.endsWith('.d.ts')).map((n) => path.join(__dirname, n));
  return [...new Set([...validationRulesFiles(), ...sourceClosure(stores)])].sort();
}

/**
 * A hash of digestFormFiles() and the validator's library versions, read once per process (`read`:
 * a test's altered copy of the files).
 */
export function digestForm(read?: (file: string) => Buffer | string): string {
  if (form !== undefined && read === undefined) return form;
  const root = path.resolve(__dirname, '..', '..');
  const hash = crypto.createHash('sha256').update(validationRulesVersion(read)).update('\0').update(hashFiles(root, digestFormFiles(), read));
  const value = hash.digest('base64url').slice(0, 16);
  if (read === undefined) form = value;
  return value;
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
 * (migration 0016). The digest filler calls it for the accounts the create queued.
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

/** Accounts a pass of the digest filler takes at most. */
export const FILL_BATCH = 500;

/**
 * One pass of the digest filler (the workers' DigestFiller, imports/digestFiller.ts): takes up to
 * `limit` accounts the create queued in account_digest_pending (`FOR UPDATE SKIP LOCKED`: workers
 * share the queue), stores their digests (accountDigests, one read-back for the batch) and removes
 * them from the queue, in one transaction: a filler killed in the middle leaves them queued. An
 * account gone meanwhile, or held by a writer, leaves the queue without a digest (the bulk
 * operation computes it when asked). Returns how many it took.
 */
export async function fillPendingDigests(db: Knex, limit = FILL_BATCH): Promise<number> {
  return db.transaction(async (trx) => {
    const taken = (await trx.raw(
      `DELETE FROM account_digest_pending WHERE account_id IN (
         SELECT account_id FROM account_digest_pending ORDER BY account_id LIMIT ? FOR UPDATE SKIP LOCKED)
       RETURNING account_id`,
      [limit],
    )).rows as { account_id: string }[];
    if (taken.length === 0) return 0;
    const accounts = (await trx('accounts')
      .select('import_supplier', 'external_account_number')
      .whereIn(
        'id',
        taken.map((t) => t.account_id),
      )) as { import_supplier: string; external_account_number: string }[];
    const bySupplier = new Map<string, string[]>();
    for (const a of accounts) {
      const list = bySupplier.get(a.import_supplier);
      if (list) list.push(a.external_account_number);
      else bySupplier.set(a.import_supplier, [a.external_account_number]);
    }
    for (const [supplier, externals] of bySupplier) await accountDigests(trx, supplier, externals);
    return taken.length;
  });
}

/** Accounts waiting for the digest filler. */
export async function pendingDigestCount(db: Knex): Promise<number> {
  const [{ n }] = (await db('account_digest_pending').count({ n: '*' })) as { n: string }[];
  return Number(n);
}
