import type { Knex } from 'knex';

/**
 * The digest filler's queue (account_digest_pending, migrations 0016 and 0023) as a queue that
 * survives a poison item: every attempt is counted and committed before the work, so a process the
 * item kills (a heap OOM reading it back) leaves the count behind, and a row whose attempts reached
 * the bound is set aside with its reason instead of being taken again (docs/operations.md
 * "Set-aside queue items"). Several workers share the queue: a row attempted less than `leaseMs`
 * ago is another worker's (or a dead one's, taken again once the lease is over).
 */

export interface QueuePolicy {
  /** Attempts before a row is set aside. */
  maxAttempts: number;
  /** How long an attempt holds its row: longer than the slowest legitimate attempt. */
  leaseMs: number;
}

/**
 * A lease of 15 s, renewed while the attempt runs (holdingLease): a row whose worker was killed is
 * taken again 15 s later, not 120 s (the fault suite's worker kills left digests queued past its
 * minute), and a slow live attempt keeps its rows.
 */
export const DIGEST_QUEUE_POLICY: QueuePolicy = { maxAttempts: 3, leaseMs: 15_000 };

/** How many leases an attempt may renew for before its rows are free to be taken again (a hang). */
const MAX_RENEWED_LEASES = 8;

/** Renews the lease of rows this process is attempting (not those an operator set aside meanwhile). */
export async function renewLease(db: Knex, ids: readonly number[]): Promise<void> {
  await db.raw(`UPDATE account_digest_pending SET attempted_at = now() WHERE account_id = ANY(?::bigint[]) AND set_aside_at IS NULL`, [[...ids]]);
}

/**
 * Runs `work` on rows whose attempt this process recorded, renewing their lease every third of it,
 * for at most MAX_RENEWED_LEASES leases: a live attempt keeps its rows, a dead process's rows are
 * free one lease after it died, and a hung attempt's after the cap.
 */
export async function holdingLease<T>(db: Knex, ids: readonly number[], policy: QueuePolicy, work: () => Promise<T>): Promise<T> {
  if (ids.length === 0 || policy.leaseMs <= 0) return work();
  const until = Date.now() + policy.leaseMs * MAX_RENEWED_LEASES;
  const timer = setInterval(() => {
    if (Date.now() < until) void renewLease(db, ids).catch(() => undefined);
  }, Math.max(250, Math.floor(policy.leaseMs / 3)));
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

const due = `set_aside_at IS NULL AND (attempted_at IS NULL OR attempted_at < now() - make_interval(secs => ?::double precision / 1000))`;

/** Sets aside every due row whose attempts reached the bound (its last attempt never finished: the process died); their ids. */
export async function setAsideExhausted(db: Knex, policy: QueuePolicy): Promise<number[]> {
  const rows = (await db.raw(
    `UPDATE account_digest_pending SET set_aside_at = now(),
       last_error = coalesce(last_error || '; ', '') || 'attempt ' || attempts || ' never finished (the process stopped: a crash or out of memory)'
     WHERE account_id IN (SELECT account_id FROM account_digest_pending WHERE attempts >= ? AND ${due} FOR UPDATE SKIP LOCKED)
     RETURNING account_id`,
    [policy.maxAttempts, policy.leaseMs],
  )).rows as { account_id: string }[];
  return rows.map((r) => Number(r.account_id));
}

/**
 * Records one attempt (committed by the caller's handle, before any work) on up to `limit` due rows:
 * `retried` false takes rows never attempted (a batch), true rows attempted before (taken one by
 * one, so one poison row costs only its own attempts). Returns the ids taken.
 */
export async function recordAttempt(db: Knex, opts: { limit: number; retried: boolean; policy: QueuePolicy }): Promise<number[]> {
  const rows = (await db.raw(
    `UPDATE account_digest_pending SET attempts = attempts + 1, attempted_at = now()
     WHERE account_id IN (SELECT account_id FROM account_digest_pending
       WHERE attempts ${opts.retried ? '>' : '='} 0 AND attempts < ? AND ${due} ORDER BY account_id LIMIT ? FOR UPDATE SKIP LOCKED)
     RETURNING account_id`,
    [opts.policy.maxAttempts, opts.policy.leaseMs, opts.limit],
  )).rows as { account_id: string }[];
  return rows.map((r) => Number(r.account_id)).sort((a, b) => a - b);
}

/**
 * Takes these rows off the queue once their work is done, in the work's transaction (a row an
 * operator set aside meanwhile stays). Returns the ids removed.
 */
export async function removeDone(trx: Knex.Transaction, ids: readonly number[]): Promise<number[]> {
  const rows = (await trx.raw(`DELETE FROM account_digest_pending WHERE account_id = ANY(?::bigint[]) AND set_aside_at IS NULL RETURNING account_id`, [[...ids]])).rows as {
    account_id: string;
  }[];
  return rows.map((r) => Number(r.account_id));
}

/**
 * Records a failed attempt's reason; a row at its last attempt is set aside. `again` frees the
 * rows for the next attempt at once (a failed batch is retried row by row); returns the ids set aside.
 */
export async function recordFailure(db: Knex, ids: readonly number[], reason: string, opts: { again: boolean; policy: QueuePolicy }): Promise<number[]> {
  const rows = (await db.raw(
    `UPDATE account_digest_pending SET last_error = left(?, 1000),
       attempted_at = CASE WHEN ? THEN NULL ELSE attempted_at END,
       set_aside_at = CASE WHEN attempts >= ? THEN now() END
     WHERE account_id = ANY(?::bigint[]) AND set_aside_at IS NULL
     RETURNING account_id, set_aside_at`,
    [reason, opts.again, opts.policy.maxAttempts, [...ids]],
  )).rows as { account_id: string; set_aside_at: Date | null }[];
  return rows.filter((r) => r.set_aside_at !== null).map((r) => Number(r.account_id));
}

export interface SetAsideItem {
  queue: 'digest';
  id: number;
  supplier: string | null;
  externalAccountNumber: string | null;
  attempts: number;
  reason: string | null;
  setAsideAt: Date;
}

/** The set-aside rows of the digest queue, oldest first, with the account they name. */
export async function listSetAside(db: Knex, limit = 100): Promise<SetAsideItem[]> {
  const rows = (await db.raw(
    `SELECT p.account_id, a.import_supplier, a.external_account_number, p.attempts, p.last_error, p.set_aside_at
     FROM account_digest_pending p LEFT JOIN accounts a ON a.id = p.account_id
     WHERE p.set_aside_at IS NOT NULL ORDER BY p.set_aside_at, p.account_id LIMIT ?`,
    [limit],
  )).rows as { account_id: string; import_supplier: string | null; external_account_number: string | null; attempts: number; last_error: string | null; set_aside_at: Date }[];
  return rows.map((r) => ({
    queue: 'digest',
    id: Number(r.account_id),
    supplier: r.import_supplier,
    externalAccountNumber: r.external_account_number,
    attempts: r.attempts,
    reason: r.last_error,
    setAsideAt: r.set_aside_at,
  }));
}

/** How many rows of the digest queue are set aside. */
export async function setAsideCount(db: Knex): Promise<number> {
  const [{ n }] = (await db('account_digest_pending').whereNotNull('set_aside_at').count({ n: '*' })) as { n: string }[];
  return Number(n);
}

/** Puts set-aside rows back on the queue with their attempts reset (all of them when `ids` is null); the ids put back. */
export async function retrySetAside(db: Knex, ids: readonly number[] | null): Promise<number[]> {
  const rows = (await db.raw(
    `UPDATE account_digest_pending SET set_aside_at = NULL, attempts = 0, attempted_at = NULL
     WHERE set_aside_at IS NOT NULL ${ids === null ? '' : 'AND account_id = ANY(?::bigint[])'} RETURNING account_id`,
    ids === null ? [] : [[...ids]],
  )).rows as { account_id: string }[];
  return rows.map((r) => Number(r.account_id)).sort((a, b) => a - b);
}
