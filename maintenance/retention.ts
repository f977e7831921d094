import type { Knex } from 'knex';
import type { Metrics } from '../lib/metrics';
import { deleteRefreshTokens, refreshTokenCandidates, refreshTokensDue } from '../auth';
import { payloadCandidates, payloadsDue, prunePayloadBatch } from '../imports';
import { deletePublishedOutboxRows, outboxDueAfter, outboxHeldUnpublished, outboxPage } from '../events/outboxRetention';
import type { KeyRange } from '../db/retentionSql';
import { claimItem, itemDone, itemFailed, itemGiveBack, setAsideItems } from '../db/stores/queueItems';
import type { QueuePolicy } from '../db/stores/digestQueue';
import { isDatabaseOutage } from '../db/outage';

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
 *
 * One batch that fails never stops retention (issue 47, item 4): a batch is named by what it
 * prunes, `<table>:<first key>..<last key>` (queue 'retention' of queue_item_attempts), its attempt
 * is recorded before its statement, a failure is recorded with its reason and the run goes on past
 * it; after RETENTION_QUEUE_POLICY.maxAttempts the batch is set aside and no run touches its key
 * range until `data-import set-aside retry retention <batch>` (docs/operations.md "Set-aside queue
 * items"). An unreachable database is not the batch's: its attempt is given back and the run fails.
 */

/** Attempts at one batch before it is set aside, and how long an attempt holds it (a batch is one short statement). */
export const RETENTION_QUEUE_POLICY: QueuePolicy = { maxAttempts: 3, leaseMs: 5 * 60_000 };
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
  /** Batches that failed in this run (`<table>:<first key>..<last key>`), set aside after their last attempt. */
  failedBatches: string[];
}

type Metered = Pick<Metrics, 'queueItemFailures' | 'queueItemsSetAside'>;

/** What one run shares between its kinds: the attempt bound, the metrics, the batches that failed. */
interface RunContext {
  db: Knex;
  policy: QueuePolicy;
  metrics?: Metered;
  failed: string[];
}

/** The set-aside batches of `table`: their key ranges, which no run touches until retried. */
async function setAsideRanges(db: Knex, table: string): Promise<KeyRange[]> {
  return (await setAsideItems(db, 'retention', `${table}:`)).map((item) => {
    const [lo, hi] = item.slice(table.length + 1).split('..');
    return { lo: lo!, hi: hi! };
  });
}

/**
 * Prunes one batch, its attempt recorded before the work: the rows pruned, or null when the batch
 * failed (recorded, set aside at its last attempt) or another run's attempt holds it.
 */
async function attemptBatch(c: RunContext, table: string, keys: string[], prune: () => Promise<number>): Promise<number | null> {
  const item = `${table}:${keys[0]}..${keys[keys.length - 1]}`;
  const claim = await claimItem(c.db, 'retention', item, {}, c.policy);
  if (!claim.taken) {
    if (claim.setAside) c.metrics?.queueItemsSetAside.inc({ queue: 'retention' });
    return null;
  }
  try {
    const n = await prune();
    await itemDone(c.db, 'retention', item);
    return n;
  } catch (err) {
    if (isDatabaseOutage(err)) {
      await itemGiveBack(c.db, 'retention', item).catch(() => undefined);
      throw err;
    }
    c.failed.push(item);
    c.metrics?.queueItemFailures.inc({ queue: 'retention' });
    if (await itemFailed(c.db, 'retention', item, String(err), c.policy)) c.metrics?.queueItemsSetAside.inc({ queue: 'retention' });
    return null;
  }
}

/** How long an expired or revoked refresh token is kept before maintenance deletes it. */
export const REFRESH_TOKEN_GRACE_SECONDS = 24 * 3600;

async function pruneRefreshTokens(c: RunContext, s: RetentionSettings, dryRun: boolean): Promise<RetentionReport['refreshTokens']> {
  return inBatches(c, s, dryRun, 'refresh_tokens', {
    due: () => refreshTokensDue(c.db, REFRESH_TOKEN_GRACE_SECONDS),
    candidates: (after, skip, limit) => refreshTokenCandidates(c.db, REFRESH_TOKEN_GRACE_SECONDS, after, skip, limit),
    prune: (keys) => deleteRefreshTokens(c.db, REFRESH_TOKEN_GRACE_SECONDS, keys),
  });
}

/**
 * Prunes what is due in key order, at most `batchSize` rows a batch (one statement), until no
 * candidate is left or the run's bound is reached, pausing between batches; a batch that fails is
 * passed (attemptBatch) and set-aside batches' key ranges are left alone. A dry run only counts.
 * Then what is still due is counted once, for the gauge.
 */
async function inBatches(
  c: RunContext,
  s: RetentionSettings,
  dryRun: boolean,
  table: string,
  work: { due: () => Promise<number>; candidates: (after: string | null, skip: KeyRange[], limit: number) => Promise<string[]>; prune: (keys: string[]) => Promise<number> },
): Promise<{ pruned: number; pending: number }> {
  if (dryRun) {
    const n = await work.due();
    const pruned = Math.min(n, s.maxRowsPerRun);
    return { pruned, pending: n - pruned };
  }
  const skip = await setAsideRanges(c.db, table);
  let pruned = 0;
  let after: string | null = null;
  while (pruned < s.maxRowsPerRun) {
    const limit = Math.min(s.batchSize, s.maxRowsPerRun - pruned);
    const keys = await work.candidates(after, skip, limit);
    if (keys.length === 0) break;
    pruned += (await attemptBatch(c, table, keys, () => work.prune(keys))) ?? 0;
    if (keys.length < limit) break;
    after = keys[keys.length - 1]!;
    if (s.pauseMs > 0) await sleep(s.pauseMs);
  }
  return { pruned, pending: await work.due() };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Walks the outbox from its oldest row in seq order, deleting published rows past retention, and
 * stops at the first batch holding nothing past retention (seq follows time) or at the run's bound.
 */
async function pruneOutbox(c: RunContext, s: RetentionSettings, dryRun: boolean): Promise<RetentionReport['outbox']> {
  const db = c.db;
  const retention = s.outboxRetentionSeconds;
  const skip = (await setAsideRanges(db, 'outbox')).map((r) => ({ lo: BigInt(r.lo), hi: BigInt(r.hi) }));
  const setAside = (seq: string) => skip.some((r) => BigInt(seq) >= r.lo && BigInt(seq) <= r.hi);
  let cursor = '0';
  let pruned = 0;
  let caughtUp = false;
  while (pruned < s.maxRowsPerRun) {
    const limit = Math.min(s.batchSize, s.maxRowsPerRun - pruned);
    const rows = await outboxPage(db, retention, cursor, limit);
    const due = rows.filter((r) => r.old && !r.pending && !setAside(r.seq)).map((r) => r.seq);
    if (due.length > 0) {
      pruned += dryRun ? due.length : ((await attemptBatch(c, 'outbox', due, () => deletePublishedOutboxRows(db, due))) ?? 0);
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

async function prunePayloads(c: RunContext, s: RetentionSettings, dryRun: boolean): Promise<RetentionReport['payload']> {
  return inBatches(c, s, dryRun, 'import_processes', {
    due: () => payloadsDue(c.db, s.payloadRetentionSeconds),
    candidates: (after, skip, limit) => payloadCandidates(c.db, s.payloadRetentionSeconds, after, skip, limit),
    prune: (keys) => prunePayloadBatch(c.db, s.payloadRetentionSeconds, keys),
  });
}

/** One maintenance pass: the outbox, the payloads, then the refresh tokens. A dry run counts and changes nothing. */
export async function runRetention(
  db: Knex,
  s: RetentionSettings,
  opts: { dryRun?: boolean; metrics?: Pick<Metrics, 'retentionPruned' | 'retentionPending' | 'retentionHeldUnpublished' | 'retentionLastRun'> & Partial<Metered>; policy?: QueuePolicy } = {},
): Promise<RetentionReport> {
  const dryRun = opts.dryRun ?? false;
  const m0 = opts.metrics;
  const c: RunContext = {
    db,
    policy: opts.policy ?? RETENTION_QUEUE_POLICY,
    metrics: m0?.queueItemFailures && m0.queueItemsSetAside ? { queueItemFailures: m0.queueItemFailures, queueItemsSetAside: m0.queueItemsSetAside } : undefined,
    failed: [],
  };
  const outbox = await pruneOutbox(c, s, dryRun);
  const payload = await prunePayloads(c, s, dryRun);
  const refreshTokens = await pruneRefreshTokens(c, s, dryRun);
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
  return { dryRun, outbox, payload, refreshTokens, failedBatches: c.failed };
}
