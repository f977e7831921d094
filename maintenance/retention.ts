import type { Knex } from 'knex';
import type { Metrics } from '../lib/metrics';

/**
 * Retention (docs/operations.md "Retention and storage per account"): what the service keeps, and for how long.
 *
 * - Outbox: an event acknowledged by JetStream is deleted once older than `outboxRetentionSeconds`
 *   (JetStream holds the events; the outbox row is only an audit trail by then). An event still on
 *   the pending queue is never deleted, however old: the DELETE re-checks the queue and the foreign
 *   key outbox_pending → outbox refuses it anyway.
 * - Claim check: the stored payload of a PROCESSED import is dropped (set to NULL, with
 *   payload_pruned_at) once the import has not changed for `payloadRetentionSeconds`: the account
 *   tables hold the data, a PROCESSED import is never re-run, and the status record does not use
 *   the payload. STAGED, ERRORED, DRY_RUN_*, CANCELLED, PENDING and IN_PROGRESS imports keep theirs: a run
 *   reads it, and a failed one is audited against it until the next create replaces it.
 * - Refresh tokens (auth/store.ts) are deleted once expired or revoked for more than a day
 *   (REFRESH_TOKEN_GRACE_SECONDS): nothing accepts them any more. A used, unexpired one is kept —
 *   presenting it again is how a stolen copy is detected (its family revoked). A pruned one
 *   presented answers KT-CT-1135 (unknown) instead of KT-CT-1134 (expired): refused either way.
 * - The import process row (the status record) is kept for ever.
 *
 * Work is done in small batches, each its own short statement, so nothing the relay or an import
 * needs is locked for long: the outbox rows pruned are old and published (nobody touches them), and
 * payload rows locked by an import are skipped (SKIP LOCKED) and taken the next time.
 */
export interface RetentionSettings {
  outboxRetentionSeconds: number;
  payloadRetentionSeconds: number;
  /** Rows per statement. */
  batchSize: number;
  /** Upper bound of rows pruned per kind by one run; the rest is reported pending. */
  maxRowsPerRun: number;
  /** Pause between two batches, leaving room to the relay and the imports. */
  pauseMs: number;
}

export interface RetentionReport {
  dryRun: boolean;
  outbox: {
    /** Deleted (or, in a dry run, that would be). */
    pruned: number;
    /** Past retention and not pruned by this run (over maxRowsPerRun). */
    pending: number;
    /** Past retention but kept: JetStream has not acknowledged them. */
    heldUnpublished: number;
  };
  payload: { pruned: number; pending: number };
  refreshTokens: { pruned: number; pending: number };
}

/** How long an expired or revoked refresh token is kept before maintenance deletes it. */
export const REFRESH_TOKEN_GRACE_SECONDS = 24 * 3600;
const REFRESH_TOKEN_DUE = `expires_at < now() - make_interval(secs => ?) OR revoked_at < now() - make_interval(secs => ?)`;

async function pruneRefreshTokens(db: Knex, s: RetentionSettings, dryRun: boolean): Promise<RetentionReport['refreshTokens']> {
  const grace = [REFRESH_TOKEN_GRACE_SECONDS, REFRESH_TOKEN_GRACE_SECONDS];
  return inBatches(s, dryRun, {
    due: async () => count(await db.raw(`SELECT count(*) AS n FROM refresh_tokens WHERE ${REFRESH_TOKEN_DUE}`, grace)),
    batch: async (limit) =>
      count(
        await db.raw(
          `WITH c AS (SELECT jti FROM refresh_tokens WHERE ${REFRESH_TOKEN_DUE} LIMIT ? FOR UPDATE SKIP LOCKED),
                d AS (DELETE FROM refresh_tokens r USING c WHERE r.jti = c.jti RETURNING 1)
           SELECT count(*) AS n FROM d`,
          [...grace, limit],
        ),
      ),
  });
}

/**
 * Prunes what `batch` finds due, at most `batchSize` rows a statement, until a batch comes back
 * short or the run's bound is reached, pausing between batches; a dry run only counts. Then what
 * is still due is counted once, for the gauge.
 */
async function inBatches(
  s: RetentionSettings,
  dryRun: boolean,
  work: { due: () => Promise<number>; batch: (limit: number) => Promise<number> },
): Promise<{ pruned: number; pending: number }> {
  if (dryRun) {
    const n = await work.due();
    const pruned = Math.min(n, s.maxRowsPerRun);
    return { pruned, pending: n - pruned };
  }
  let pruned = 0;
  while (pruned < s.maxRowsPerRun) {
    const limit = Math.min(s.batchSize, s.maxRowsPerRun - pruned);
    const n = await work.batch(limit);
    pruned += n;
    if (n < limit) break;
    if (s.pauseMs > 0) await sleep(s.pauseMs);
  }
  return { pruned, pending: await work.due() };
}

const count = (r: { rows: { n: string | number }[] }) => Number(r.rows[0]?.n ?? 0);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Walks the outbox from its oldest row in seq order, deleting published rows past retention, and
 * stops at the first batch holding nothing past retention (seq follows time) or at the run's bound.
 */
async function pruneOutbox(db: Knex, s: RetentionSettings, dryRun: boolean): Promise<RetentionReport['outbox']> {
  const cutoff = db.raw('now() - make_interval(secs => ?)', [s.outboxRetentionSeconds]);
  let cursor = '0';
  let pruned = 0;
  let caughtUp = false;
  while (pruned < s.maxRowsPerRun) {
    const limit = Math.min(s.batchSize, s.maxRowsPerRun - pruned);
    const rows: { seq: string; old: boolean; pending: boolean }[] = (
      await db.raw(
        `SELECT o.seq, o.created_at < ? AS old, p.seq IS NOT NULL AS pending
           FROM outbox o LEFT JOIN outbox_pending p ON p.seq = o.seq
          WHERE o.seq > ? ORDER BY o.seq LIMIT ?`,
        [cutoff, cursor, limit],
      )
    ).rows;
    const due = rows.filter((r) => r.old && !r.pending).map((r) => r.seq);
    if (due.length > 0) {
      pruned += dryRun
        ? due.length
        : count(
            await db.raw(
              `WITH d AS (DELETE FROM outbox o WHERE o.seq = ANY(?::bigint[])
                            AND NOT EXISTS (SELECT 1 FROM outbox_pending p WHERE p.seq = o.seq) RETURNING 1)
               SELECT count(*) AS n FROM d`,
              [due],
            ),
          );
    }
    if (rows.length < limit || !rows.some((r) => r.old)) {
      caughtUp = true;
      break;
    }
    cursor = rows[rows.length - 1]!.seq;
    if (s.pauseMs > 0) await sleep(s.pauseMs);
  }
  // Behind (the run's bound was reached): count the rest once, so the gauge says how far behind.
  const pending = caughtUp
    ? 0
    : count(
        await db.raw(
          `SELECT count(*) AS n FROM outbox o
            WHERE o.seq > ? AND o.created_at < ? AND NOT EXISTS (SELECT 1 FROM outbox_pending p WHERE p.seq = o.seq)`,
          [cursor, cutoff],
        ),
      );
  const heldUnpublished = count(
    await db.raw('SELECT count(*) AS n FROM outbox_pending p JOIN outbox o ON o.seq = p.seq WHERE o.created_at < ?', [cutoff]),
  );
  return { pruned, pending, heldUnpublished };
}

// Matches the partial index import_processes_payload_held_idx (migration 0010).
const PAYLOAD_DUE = `status = 'PROCESSED' AND payload IS NOT NULL AND modified_at < now() - make_interval(secs => ?)`;

async function prunePayloads(db: Knex, s: RetentionSettings, dryRun: boolean): Promise<RetentionReport['payload']> {
  return inBatches(s, dryRun, {
    due: async () => count(await db.raw(`SELECT count(*) AS n FROM import_processes WHERE ${PAYLOAD_DUE}`, [s.payloadRetentionSeconds])),
    // modified_at is left alone: it is the status record's, and dropping the payload is not a change
    // of the import.
    batch: async (limit) =>
      count(
        await db.raw(
          `WITH c AS (SELECT id FROM import_processes WHERE ${PAYLOAD_DUE} ORDER BY modified_at LIMIT ? FOR UPDATE SKIP LOCKED),
                u AS (UPDATE import_processes i SET payload = NULL, payload_pruned_at = now() FROM c WHERE i.id = c.id RETURNING 1)
           SELECT count(*) AS n FROM u`,
          [s.payloadRetentionSeconds, limit],
        ),
      ),
  });
}

/** One maintenance pass: the outbox, the payloads, then the refresh tokens. A dry run counts and changes nothing. */
export async function runRetention(
  db: Knex,
  s: RetentionSettings,
  opts: { dryRun?: boolean; metrics?: Pick<Metrics, 'retentionPruned' | 'retentionPending' | 'retentionHeldUnpublished' | 'retentionLastRun'> } = {},
): Promise<RetentionReport> {
  const dryRun = opts.dryRun ?? false;
  const outbox = await pruneOutbox(db, s, dryRun);
  const payload = await prunePayloads(db, s, dryRun);
  const refreshTokens = await pruneRefreshTokens(db, s, dryRun);
  const m = opts.metrics;
  if (m && !dryRun) {
    m.retentionPruned.inc({ kind: 'outbox' }, outbox.pruned);
    m.retentionPruned.inc({ kind: 'payload' }, payload.pruned);
    m.retentionPending.set({ kind: 'outbox' }, outbox.pending);
    m.retentionPending.set({ kind: 'payload' }, payload.pending);
    m.retentionPruned.inc({ kind: 'refresh_token' }, refreshTokens.pruned);
    m.retentionPending.set({ kind: 'refresh_token' }, refreshTokens.pending);
    m.retentionHeldUnpublished.set(outbox.heldUnpublished);
    m.retentionLastRun.set(Date.now() / 1000);
  }
  return { dryRun, outbox, payload, refreshTokens };
}
