import type { Knex } from 'knex';
import type { Metrics } from '../lib/metrics';
import { deletePublishedOutboxRows, deleteRefreshTokens, outboxDueAfter, outboxHeldUnpublished, outboxPage, payloadsDue, prunePayloadBatch, refreshTokensDue } from './store';

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

async function pruneRefreshTokens(db: Knex, s: RetentionSettings, dryRun: boolean): Promise<RetentionReport['refreshTokens']> {
  return inBatches(s, dryRun, {
    due: () => refreshTokensDue(db, REFRESH_TOKEN_GRACE_SECONDS),
    batch: (limit) => deleteRefreshTokens(db, REFRESH_TOKEN_GRACE_SECONDS, limit),
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

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Walks the outbox from its oldest row in seq order, deleting published rows past retention, and
 * stops at the first batch holding nothing past retention (seq follows time) or at the run's bound.
 */
async function pruneOutbox(db: Knex, s: RetentionSettings, dryRun: boolean): Promise<RetentionReport['outbox']> {
  const retention = s.outboxRetentionSeconds;
  let cursor = '0';
  let pruned = 0;
  let caughtUp = false;
  while (pruned < s.maxRowsPerRun) {
    const limit = Math.min(s.batchSize, s.maxRowsPerRun - pruned);
    const rows = await outboxPage(db, retention, cursor, limit);
    const due = rows.filter((r) => r.old && !r.pending).map((r) => r.seq);
    if (due.length > 0) {
      pruned += dryRun ? due.length : await deletePublishedOutboxRows(db, due);
    }
    if (rows.length < limit || !rows.some((r) => r.old)) {
      caughtUp = true;
      break;
    }
    cursor = rows[rows.length - 1]!.seq;
    if (s.pauseMs > 0) await sleep(s.pauseMs);
  }
  // Behind (the run's bound was reached): count the rest once, so the gauge says how far behind.
  const pending = caughtUp ? 0 : await outboxDueAfter(db, retention, cursor);
  const heldUnpublished = await outboxHeldUnpublished(db, retention);
  return { pruned, pending, heldUnpublished };
}

async function prunePayloads(db: Knex, s: RetentionSettings, dryRun: boolean): Promise<RetentionReport['payload']> {
  return inBatches(s, dryRun, {
    due: () => payloadsDue(db, s.payloadRetentionSeconds),
    batch: (limit) => prunePayloadBatch(db, s.payloadRetentionSeconds, limit),
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
