import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import { accountDigest } from '../../account/canonical';
import { validationRulesFiles, validationRulesVersion } from '../../account/fingerprint';
import { hashFiles, sourceClosure } from '../../lib/sourceHash';
import { loadAccountsByExternal } from './accountStore';
import { DIGEST_QUEUE_POLICY, holdingLease, recordAttempt, recordFailure, removeDone, setAsideExhausted, type QueuePolicy } from './digestQueue';

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
 * Stores the digests of these queued accounts (accountDigests, one read-back for them all) and takes
 * them off the queue, in one transaction: a filler killed in the middle leaves them queued. An
 * account gone meanwhile, or held by a writer, leaves the queue without a digest (the bulk
 * operation computes it when asked).
 */
async function fillAccounts(db: Knex, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await db.transaction(async (trx) => {
    const taken = await removeDone(trx, ids);
    if (taken.length === 0) return;
    const accounts = (await trx('accounts').select('import_supplier', 'external_account_number').whereIn('id', taken)) as { import_supplier: string; external_account_number: string }[];
    const bySupplier = new Map<string, string[]>();
    for (const a of accounts) {
      const list = bySupplier.get(a.import_supplier);
      if (list) list.push(a.external_account_number);
      else bySupplier.set(a.import_supplier, [a.external_account_number]);
    }
    for (const [supplier, externals] of bySupplier) await accountDigests(trx, supplier, externals);
  });
}

const reasonOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

export interface FillPass {
  /** Queue rows attempted by this pass. */
  taken: number;
  /** Account ids this pass set aside (their attempts reached the bound). */
  setAside: number[];
  /** Attempts that failed with an error (not counting those a crash ended). */
  failed: number;
}

/**
 * One pass of the digest filler (the workers' DigestFiller, imports/digestFiller.ts) over the queue
 * the create fills (account_digest_pending), safe against a poison account (db/stores/digestQueue.ts):
 * first rows whose last attempt never finished and used up their attempts are set aside; then rows
 * attempted before are retried one at a time, so an account that fails or kills the process costs
 * only its own attempts; then up to the rest of `limit` fresh rows are taken as one batch (one
 * read-back). Each attempt is committed before the work starts. A failed batch is freed for the
 * row-by-row retry at once.
 */
export async function fillPass(db: Knex, limit = FILL_BATCH, policy: QueuePolicy = DIGEST_QUEUE_POLICY): Promise<FillPass> {
  const out: FillPass = { taken: 0, setAside: await setAsideExhausted(db, policy), failed: 0 };
  while (out.taken < limit) {
    const ids = await recordAttempt(db, { limit: 1, retried: true, policy });
    if (ids.length === 0) break;
    out.taken += ids.length;
    await holdingLease(db, ids, policy, () => fillAccounts(db, ids)).catch(async (err: unknown) => {
      out.failed++;
      out.setAside.push(...(await recordFailure(db, ids, reasonOf(err), { again: false, policy })));
    });
  }
  if (out.taken >= limit) return out;
  const batch = await recordAttempt(db, { limit: limit - out.taken, retried: false, policy });
  out.taken += batch.length;
  await holdingLease(db, batch, policy, () => fillAccounts(db, batch)).catch(async (err: unknown) => {
    out.failed++;
    out.setAside.push(...(await recordFailure(db, batch, reasonOf(err), { again: batch.length > 1, policy })));
  });
  return out;
}

/** One pass of the digest filler (fillPass); how many queue rows it attempted. */
export async function fillPendingDigests(db: Knex, limit = FILL_BATCH, policy: QueuePolicy = DIGEST_QUEUE_POLICY): Promise<number> {
  return (await fillPass(db, limit, policy)).taken;
}

/** Accounts waiting for the digest filler (not counting those set aside). */
export async function pendingDigestCount(db: Knex): Promise<number> {
  const [{ n }] = (await db('account_digest_pending').whereNull('set_aside_at').count({ n: '*' })) as { n: string }[];
  return Number(n);
}
