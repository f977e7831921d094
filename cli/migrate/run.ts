import fs from 'node:fs';
import { setMaxListeners } from 'node:events';
import { ApiClient, DEFAULT_API_URL, TransportError } from '../shared/api';
import { AuthError } from '../shared/auth';
import { AbortedError } from '../shared/backoff';
import type { ApiUnavailableError } from '../shared/availability';
import { Follower, type FollowItem } from './follow';
import { countInput, readInput, type InputRecord } from '../shared/input';
import { inTranche } from '../../lib/tranche';
import { startProgress } from '../shared/progress';
import { formatSummary, writeReport, type ReportRow } from './report';
import { reportPrefixOf } from '../shared/report';
import { Phases } from '../shared/phases';
import { MigrationState } from './state';
import { MigrationError, Submitter } from './submit';
import { markUnfinished, resumeOf } from './resume';
import { SubmitWindow } from './window';
import type { AccountStatus, MigrationOptions, MigrationSummary } from './types';

export const DEFAULT_CONCURRENCY = 16;
export const DEFAULT_POLL_INTERVAL_MS = 1000;
export const DEFAULT_MAX_RETRIES = 6;
export const DEFAULT_OUTAGE_TIMEOUT_MS = 30 * 60_000;

export { MigrationError };

function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/**
 * Pushes a book through the HTTP API (the CLI `data-import migrate` is a thin wrapper):
 * reads the input as a stream, optionally validates, creates with bounded concurrency, follows
 * every import to a final status, keeps a resumable state file, and writes the report.
 * Aborting `opts.signal` stops submitting and following, saves the state and resolves with
 * `interrupted: true`; a re-run with the same options resumes.
 * The loop is here; its parts beside it: what the answers about one account make of it
 * (submit.ts), the submitting window and its back-pressure (window.ts), what a re-run does with an
 * account an earlier run saw (resume.ts), the imports followed (follow.ts).
 */
export async function runMigration(opts: MigrationOptions): Promise<MigrationSummary> {
  const started = Date.now();
  const mode = opts.mode ?? 'create';
  const concurrency = opts.concurrency ?? DEFAULT_CONCURRENCY;
  const maxInFlight = opts.maxInFlight ?? concurrency * 2;
  const pollIntervalMs = opts.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  // --validate-only changes nothing on the server, so it leaves the resumable state alone.
  const statePath = mode === 'validate-only' ? null : (opts.statePath ?? `${opts.input}.migrate-state.json`);
  const reportPrefix = reportPrefixOf(opts.reportPrefix ?? `${opts.input}.report`);
  const log = opts.log ?? ((line: string) => void process.stderr.write(`${line}\n`));

  await fs.promises.stat(opts.input); // a missing input fails the run before anything is sent
  const state = await MigrationState.load(statePath, opts.input);

  const stop = new AbortController();
  // Every request and backoff in flight listens to it: hundreds with a high --concurrency.
  setMaxListeners(0, stop.signal);
  let interrupted = false;
  let timedOut = false;
  let fatal: Error | null = null;
  const onAbort = () => {
    interrupted = true;
    stop.abort();
  };
  if (opts.signal?.aborted) onAbort();
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  const timeout = opts.timeoutMs
    ? setTimeout(() => {
        timedOut = true;
        stop.abort();
      }, opts.timeoutMs)
    : null;

  let apiUnavailable: ApiUnavailableError | null = null;
  const backoffBaseMs = opts.backoffBaseMs ?? 250;
  const backoffCapMs = opts.backoffCapMs ?? 20_000;
  const outageTimeoutMs = opts.outageTimeoutMs ?? DEFAULT_OUTAGE_TIMEOUT_MS;
  const api = new ApiClient({
    apiUrl: opts.apiUrl ?? DEFAULT_API_URL,
    apiKey: opts.apiKey,
    connections: concurrency * 2,
    maxRetries: opts.maxRetries ?? DEFAULT_MAX_RETRIES,
    backoffBaseMs,
    backoffCapMs,
    signal: stop.signal,
    outage: {
      timeoutMs: outageTimeoutMs > 0 ? outageTimeoutMs : null,
      log,
      onGiveUp: (err) => {
        apiUnavailable = err;
        stop.abort();
      },
    },
  });

  const extras: ReportRow[] = []; // parse errors and duplicates: not accounts of the state
  const seen = new Set<string>();
  const latencies: number[] = [];
  const liveCounts: Record<string, number> = {};
  let finals = 0;
  let finalsThisRun = 0;
  let skipped = 0;
  let resumed = 0;
  let total: number | null = null;
  // What the run is doing, each with its own count, rate and ETA: reading the book, sending each
  // record (or skipping it), following the submitted imports to their end.
  const phases = new Phases();
  const reading = phases.start('reading the book', 'records');
  const sending = phases.start(mode === 'validate-only' ? 'validating' : mode === 'stage' ? 'staging' : 'sending', 'records');
  const followingPhase = phases.start('following', 'imports', 0);
  void countInput(opts.input).then(
    (n) => {
      reading.total = n;
      // Of a tranche, how many accounts of the book are in it is known only once it is read.
      if (opts.tranche) return;
      total = n;
      sending.total = n;
    },
    () => undefined,
  );

  const final = (status: AccountStatus, fromEarlierRun = false) => {
    liveCounts[status] = (liveCounts[status] ?? 0) + 1;
    finals++;
    if (!fromEarlierRun) finalsThisRun++;
  };
  // What the answers about one account make of it (submit.ts); an account the API took is followed.
  const follow = (item: FollowItem) => {
    followingPhase.total!++;
    follower.follow(item);
  };
  const submit = new Submitter({ api, state, mode, opts, final, follow, latencies });

  const follower = new Follower(
    api,
    pollIntervalMs,
    concurrency,
    stop.signal,
    (item: FollowItem, res) => {
      const isFinal = submit.applyStatus(item.supplier, item.external, res.body, item.createdAt);
      if (isFinal) followingPhase.done++;
      return isFinal;
    },
    (item) => {
      followingPhase.done++;
      state.set(item.external, item.supplier, 'FAILED', {
        errors: [{ code: 'import_process_not_found', attr: 'non_field_errors', detail: 'The create was accepted but the import status stayed not found.' }],
      });
      final('FAILED');
    },
    { log },
  );

  const handle = async (rec: InputRecord): Promise<void> => {
    if (rec.kind === 'parse_error') {
      extras.push({
        external_account_number: rec.where,
        record: { book: state.book, import_supplier: '', status: 'PARSE_ERROR', errors: [{ code: 'parse_error', attr: 'non_field_errors', detail: `${rec.where}: ${rec.detail}` }], updated_at: new Date().toISOString() },
      });
      final('PARSE_ERROR');
      return;
    }
    if (seen.has(rec.external)) {
      extras.push({
        external_account_number: rec.external,
        record: {
          book: state.book,
          import_supplier: rec.supplier,
          status: 'DUPLICATE_IN_INPUT',
          errors: [{ code: 'duplicate_external_account_number', attr: 'external_account_number', detail: `${rec.where}: this external account number came earlier in the input; only the first record is sent` }],
          updated_at: new Date().toISOString(),
        },
      });
      final('DUPLICATE_IN_INPUT');
      return;
    }
    seen.add(rec.external);
    try {
      if (mode === 'validate-only') {
        await submit.validate(rec);
        return;
      }
      const prior = state.get(rec.external)?.status;
      const resume = resumeOf(prior, mode, opts);
      if (resume === 'skip') {
        skipped++;
        final(prior!, true);
        return;
      }
      if (resume === 'follow') {
        const res = await api.status(rec.supplier, rec.external);
        submit.requireAuth(res);
        if (res.status === 200) {
          resumed++;
          if (!submit.applyStatus(rec.supplier, rec.external, res.body)) follow({ supplier: rec.supplier, external: rec.external });
          return;
        }
        // 404: the earlier create never landed; anything else: send it again (create is idempotent).
      }
      if (mode === 'stage') return await submit.stage(rec);
      if (mode === 'process') return await submit.processStaged(rec);
      if (mode === 'validate-first' && !(await submit.validate(rec))) return;
      await submit.create(rec);
    } catch (err) {
      if (err instanceof AbortedError) {
        // The account keeps its earlier state; a re-run picks it up. One never answered is reported.
        if (apiUnavailable && !state.get(rec.external)) state.set(rec.external, rec.supplier, 'NOT_SUBMITTED');
        return;
      }
      if (err instanceof TransportError) return submit.fail(rec, err.code, err.message);
      if (err instanceof MigrationError || err instanceof AuthError) {
        fatal ??= err;
        stop.abort();
        return;
      }
      submit.fail(rec, 'client_error', (err as Error).message);
    }
  };

  const progress = startProgress(
    opts.progress ?? 'auto',
    { total: () => total, done: () => finals, counts: () => liveCounts, following: () => follower.size, outage: () => api.outage(), phases: () => phases.all() },
    log,
  );
  state.startAutoFlush();
  const following = follower.run();
  try {
    // At most `concurrency` records handled at once, and back-pressure from the imports followed (window.ts).
    const submitting = new SubmitWindow({ concurrency, maxInFlight, following: () => follower.size, signal: stop.signal, onSettled: () => sending.done++ });
    for await (const rec of readInput(opts.input)) {
      if (stop.signal.aborted) break;
      reading.done++;
      if (opts.tranche && rec.kind === 'account' && !inTranche(opts.tranche, rec.external)) continue;
      await submitting.submit(() => handle(rec));
    }
    phases.end('reading the book');
    await submitting.drain();
    phases.end(sending.name);
    follower.close();
    await following;
    phases.end('following');
  } finally {
    phases.endAll();
    follower.close();
    await following.catch(() => undefined);
    progress.stop();
    if (timeout) clearTimeout(timeout);
    opts.signal?.removeEventListener('abort', onAbort);
    await api.close();
    if (apiUnavailable) markUnfinished(state, seen, apiUnavailable);
    await state.stop();
  }

  const rows = function* (): Generator<ReportRow> {
    for (const [external_account_number, record] of state.entries()) yield { external_account_number, record };
    yield* extras;
  };
  const counts: Partial<Record<AccountStatus, number>> = {};
  let reportTotal = 0;
  for (const { record } of rows()) {
    counts[record.status] = (counts[record.status] ?? 0) + 1;
    reportTotal++;
  }
  latencies.sort((a, b) => a - b);
  const durationMs = Date.now() - started;
  const summary: MigrationSummary = {
    input: opts.input,
    mode,
    counts,
    total: reportTotal,
    skipped,
    resumed,
    requests: { ...api.counters },
    durationMs,
    accountsPerSecond: durationMs > 0 ? Math.round((finalsThisRun * 1000 * 10) / durationMs) / 10 : 0,
    latencyMs: { p50: percentile(latencies, 50), p95: percentile(latencies, 95), samples: latencies.length, resolutionMs: pollIntervalMs },
    interrupted: interrupted && fatal === null && apiUnavailable === null,
    timedOut,
    apiUnavailable: apiUnavailable !== null,
    outages: api.outages,
    phases: phases.timings(),
    statePath,
    reportJson: `${reportPrefix}.json`,
    reportCsv: `${reportPrefix}.csv`,
  };
  await writeReport(reportPrefix, summary, rows);
  if (fatal) throw fatal;
  return summary;
}

/** True when every account of the summary reached the outcome the run aimed for (staged, for --stage; an account already imported needs nothing more). */
export function allSucceeded(s: MigrationSummary): boolean {
  const good = new Set<AccountStatus>(s.mode === 'stage' ? ['STAGED', 'PROCESSED'] : ['PROCESSED', 'VALID', 'DRY_RUN_SUCCEEDED']);
  return Object.entries(s.counts).every(([status, n]) => good.has(status as AccountStatus) || n === 0);
}

export { formatSummary };
