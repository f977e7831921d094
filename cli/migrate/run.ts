// long-file (455 lines): the bulk client's one run loop (submit, back-pressure, outages, follow, resume) reads top to bottom.
import fs from 'node:fs';
import { setMaxListeners } from 'node:events';
import { ApiClient, DEFAULT_API_URL, errorCode, errorDetail, TransportError, type ApiResponse } from '../shared/api';
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
import { API_STATUSES, TERMINAL_API_STATUSES, type AccountStatus, type ApiStatus, type ErrorItem, type MigrationOptions, type MigrationSummary } from './types';

export const DEFAULT_CONCURRENCY = 16;
export const DEFAULT_POLL_INTERVAL_MS = 1000;
export const DEFAULT_MAX_RETRIES = 6;
export const DEFAULT_OUTAGE_TIMEOUT_MS = 30 * 60_000;
/** Statuses of an account the run had not seen to the end. */
const UNFINISHED = new Set<AccountStatus>(['NOT_SUBMITTED', 'SUBMITTED', 'PENDING', 'IN_PROGRESS']);

/** A failure of the run itself (not of one account): bad credentials, an API that wants them. */
export class MigrationError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

/** An earlier run submitted these: follow them instead of creating again. */
const FOLLOWABLE = new Set<AccountStatus>(['SUBMITTED', 'PENDING', 'IN_PROGRESS']);
/** Final failures that a re-run leaves alone unless --retry-failed. */
const FINAL_FAILURES = new Set<AccountStatus>(['VALIDATION_FAILED', 'ERRORED', 'CANCELLED']);

function isApiStatus(s: unknown): s is ApiStatus {
  return typeof s === 'string' && (API_STATUSES as readonly string[]).includes(s);
}

function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function validationErrors(body: unknown): ErrorItem[] {
  const errors = (body as { errors?: unknown })?.errors;
  if (!Array.isArray(errors)) return [];
  return errors.map((e: { code?: unknown; attr?: unknown; detail?: unknown }) => ({
    code: String(e.code ?? ''),
    attr: String(e.attr ?? ''),
    detail: String(e.detail ?? ''),
  }));
}

/**
 * Pushes a book through the HTTP API (the CLI `data-import migrate` is a thin wrapper):
 * reads the input as a stream, optionally validates, creates with bounded concurrency, follows
 * every import to a final status, keeps a resumable state file, and writes the report.
 * Aborting `opts.signal` stops submitting and following, saves the state and resolves with
 * `interrupted: true`; a re-run with the same options resumes.
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
  const fail = (rec: Extract<InputRecord, { kind: 'account' }>, code: string, detail: string) => {
    state.set(rec.external, rec.supplier, 'FAILED', { errors: [{ code, attr: 'non_field_errors', detail }] });
    final('FAILED');
  };
  const requireAuth = (res: ApiResponse) => {
    if (res.status === 401) {
      throw new MigrationError(
        opts.apiKey ? `the API refused the token (${errorCode(res.body) ?? 401})` : 'the API requires authentication: pass --api-key or set DATA_IMPORT_API_KEY',
        errorCode(res.body) ?? 'not_authenticated',
      );
    }
  };

  /** Records a status answer; true when it is final. */
  const applyStatus = (supplier: string, external: string, body: unknown, createdAt?: number): boolean => {
    const record = body as { status?: unknown; kraken_identifier?: string | null; latest_error?: { code?: string; detail?: string } | null };
    if (!isApiStatus(record.status)) return false;
    const status = record.status;
    if (!(TERMINAL_API_STATUSES as readonly string[]).includes(status)) {
      if (state.get(external)?.status !== status) state.set(external, supplier, status);
      return false;
    }
    const errors = record.latest_error
      ? [{ code: String(record.latest_error.code ?? ''), attr: 'non_field_errors', detail: String(record.latest_error.detail ?? '') }]
      : undefined;
    state.set(external, supplier, status, { kraken_identifier: record.kraken_identifier ?? null, errors });
    if (status === 'PROCESSED' && createdAt !== undefined) latencies.push(Date.now() - createdAt);
    final(status);
    return true;
  };

  const follower = new Follower(
    api,
    pollIntervalMs,
    concurrency,
    stop.signal,
    (item: FollowItem, res) => {
      const isFinal = applyStatus(item.supplier, item.external, res.body, item.createdAt);
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

  /** An account with validation errors: VALIDATION_FAILED, the errors of the answer in the report. */
  const validationFailed = (rec: Extract<InputRecord, { kind: 'account' }>, body: unknown) => {
    state.set(rec.external, rec.supplier, 'VALIDATION_FAILED', { errors: validationErrors(body) });
    final('VALIDATION_FAILED');
  };

  /** POST validate; true when valid. */
  const validate = async (rec: Extract<InputRecord, { kind: 'account' }>): Promise<boolean> => {
    const res = await api.validate(rec.account);
    requireAuth(res);
    if (res.status === 200) {
      if (mode === 'validate-only') {
        state.set(rec.external, rec.supplier, 'VALID');
        final('VALID');
      }
      return true;
    }
    if (res.status === 400 && errorCode(res.body) === 'account_failed_validation') {
      validationFailed(rec, res.body);
    } else {
      fail(rec, errorCode(res.body) ?? `http_${res.status}`, errorDetail(res.body));
    }
    return false;
  };

  const create = async (rec: Extract<InputRecord, { kind: 'account' }>): Promise<void> => {
    const body = opts.dryRunTasks ? { payload: rec.account, task_params: { is_dry_run: true } } : rec.account;
    const res = await api.create(body);
    requireAuth(res);
    const code = errorCode(res.body);
    if (afterSubmit(rec, res, code)) return;
    if (res.status === 400 && code === 'import_process_failed_validation') {
      // The create answer says only "invalid": the validate operation gives the errors.
      if (await validate(rec)) fail(rec, code, 'create reported a validation failure that validate did not reproduce');
      return;
    }
    fail(rec, code ?? `http_${res.status}`, errorDetail(res.body));
  };

  /** v1 create-or-update (--stage): STAGED, or why not. */
  const stage = async (rec: Extract<InputRecord, { kind: 'account' }>): Promise<void> => {
    const res = await api.stage(rec.account);
    requireAuth(res);
    const code = errorCode(res.body);
    if (res.status === 200 || res.status === 201) {
      state.set(rec.external, rec.supplier, 'STAGED');
      final('STAGED');
      return;
    }
    if (res.status === 400 && code === 'account_failed_validation') return validationFailed(rec, res.body);
    if (afterSubmit(rec, res, code)) return;
    fail(rec, code ?? `http_${res.status}`, errorDetail(res.body));
  };

  /** v1 process of a staged account (--process-staged): followed as a create is. */
  const processStaged = async (rec: Extract<InputRecord, { kind: 'account' }>): Promise<void> => {
    const res = await api.process(rec.supplier, rec.external, opts.dryRunTasks === true);
    requireAuth(res);
    const code = errorCode(res.body);
    // The v1 answer lists the errors: the staged data no longer passes today's rules.
    if (res.status === 400 && code === 'import_process_failed_validation') return validationFailed(rec, res.body);
    if (afterSubmit(rec, res, code)) return;
    // import_process_does_not_exist: never staged (run with --stage first).
    fail(rec, code ?? `http_${res.status}`, errorDetail(res.body));
  };

  /**
   * The answers a create, a stage and a process share: accepted (201, followed; a stage's 201 is
   * handled before), a run already under way (409, followed), already imported (400: PROCESSED,
   * the account number from the v2 body's account_id or the v1 body's kraken_account_number).
   */
  const afterSubmit = (rec: Extract<InputRecord, { kind: 'account' }>, res: ApiResponse, code: string | undefined): boolean => {
    if (res.status === 201 || (res.status === 409 && code === 'import_process_in_progress')) {
      state.set(rec.external, rec.supplier, 'SUBMITTED');
      followingPhase.total!++;
      follower.follow({ supplier: rec.supplier, external: rec.external, createdAt: res.status === 201 ? Date.now() : undefined });
      return true;
    }
    if (res.status === 400 && code === 'account_import_process_already_imported') {
      const b = res.body as { account_id?: string; kraken_account_number?: string };
      state.set(rec.external, rec.supplier, 'PROCESSED', { kraken_identifier: b.account_id ?? b.kraken_account_number ?? null });
      final('PROCESSED');
      return true;
    }
    return false;
  };

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
        await validate(rec);
        return;
      }
      const prior = state.get(rec.external)?.status;
      const done =
        prior === 'PROCESSED' ||
        (mode === 'stage' && prior === 'STAGED') ||
        (opts.dryRunTasks === true && prior === 'DRY_RUN_SUCCEEDED') ||
        (!opts.retryFailed && prior !== undefined && (FINAL_FAILURES.has(prior) || (opts.dryRunTasks === true && prior === 'DRY_RUN_ERRORED')));
      if (done) {
        skipped++;
        final(prior!, true);
        return;
      }
      if (prior !== undefined && FOLLOWABLE.has(prior)) {
        const res = await api.status(rec.supplier, rec.external);
        requireAuth(res);
        if (res.status === 200) {
          resumed++;
          if (!applyStatus(rec.supplier, rec.external, res.body)) {
            followingPhase.total!++;
            follower.follow({ supplier: rec.supplier, external: rec.external });
          }
          return;
        }
        // 404: the earlier create never landed; anything else: send it again (create is idempotent).
      }
      if (mode === 'stage') return await stage(rec);
      if (mode === 'process') return await processStaged(rec);
      if (mode === 'validate-first' && !(await validate(rec))) return;
      await create(rec);
    } catch (err) {
      if (err instanceof AbortedError) {
        // The account keeps its earlier state; a re-run picks it up. One never answered is reported.
        if (apiUnavailable && !state.get(rec.external)) state.set(rec.external, rec.supplier, 'NOT_SUBMITTED');
        return;
      }
      if (err instanceof TransportError) return fail(rec, err.code, err.message);
      if (err instanceof MigrationError || err instanceof AuthError) {
        fatal ??= err;
        stop.abort();
        return;
      }
      fail(rec, 'client_error', (err as Error).message);
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
    const inFlight = new Set<Promise<void>>();
    for await (const rec of readInput(opts.input)) {
      if (stop.signal.aborted) break;
      reading.done++;
      if (opts.tranche && rec.kind === 'account' && !inTranche(opts.tranche, rec.external)) continue;
      // Back-pressure: submit no faster than imports finish, so the service is never handed a
      // queue it cannot work off (a queue only adds latency, never throughput).
      while (follower.size + inFlight.size >= maxInFlight && !stop.signal.aborted) await new Promise((r) => setTimeout(r, 25));
      const p: Promise<void> = handle(rec).finally(() => {
        inFlight.delete(p);
        sending.done++;
      });
      inFlight.add(p);
      if (inFlight.size >= concurrency) await Promise.race(inFlight);
    }
    phases.end('reading the book');
    await Promise.all(inFlight);
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
    if (apiUnavailable) {
      const cause: ApiUnavailableError = apiUnavailable;
      for (const external of seen) {
        const record = state.get(external);
        if (record && UNFINISHED.has(record.status)) {
          state.set(external, record.import_supplier, record.status, { errors: [{ code: cause.code, attr: 'non_field_errors', detail: cause.message }] });
        }
      }
    }
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
