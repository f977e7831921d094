import fs from 'node:fs';
import path from 'node:path';
import { ApiClient, DEFAULT_API_URL } from '../shared/api';
import { AbortedError } from '../shared/backoff';
import { reportPrefixOf } from '../shared/report';
import { ApiUnavailableError } from '../shared/availability';
import { countInput, isFolder } from '../shared/input';
import { describeTranche, inTranche } from '../../lib/tranche';
import { defaultThreads, digestedRecords } from './digest';
import { KeySet } from './keySet';
import { startProgress } from '../shared/progress';
import { Phases } from '../shared/phases';
import { CLASSES, type AccountClass } from './compare';
import { accountReader } from './readBack';
import { formatSummary, writeReport, type ReconcileSummary } from './report';
import { readBatches, type AccountResult, type BatchLine, type StateHeader } from './state';
import { addTotals, emptyTotals, totalsEqual, type Totals } from './totals';
import { ReconcileError, unexpected } from './errors';
import { ACCOUNT_READS, Batcher, BatchPool, checkBatch } from './batches';
import { resumeState } from './resume';
import { OutsideTheBook } from './extras';
import { EXTRAS_MODES, type ExtrasMode, type ReconcileOptions } from './options';

export { formatSummary, ReconcileError, type ReconcileSummary };
export { nextLink } from './extras';
export { EXTRAS_MODES, type ExtrasMode, type ReconcileOptions } from './options';

/** Accounts per bulk digest request: the operation's maximum. */
export const MAX_BATCH = 500;
/** Bulk digest requests in flight at once. */
export const DEFAULT_CONCURRENCY = 4;
/** Differing paths reported per mismatched account. */
export const DEFAULT_MAX_PATHS = 50;
const ZERO = emptyTotals();
/** Accounts not matched named on the terminal. */
const MAX_FINDINGS = 5;

/**
 * `data-import reconcile`: reads the book, asks the bulk digest operation about its accounts in
 * batches of up to 500 of one supplier, classes every account (cli/reconcile/compare.ts), reads
 * each mismatched one with the single-account operation for its differing paths, lists the
 * supplier's imported accounts for the extra ones, and writes the report. Resumable: see state.ts.
 * The loop is here; its parts beside it: the batches formed, scheduled and checked (batches.ts),
 * an earlier run's batches counted again (resume.ts), the accounts outside the book (extras.ts).
 */
export async function runReconcile(opts: ReconcileOptions): Promise<ReconcileSummary> {
  const started = Date.now();
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const batchSize = opts.batchSize ?? MAX_BATCH;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > MAX_BATCH) throw new ReconcileError(`the batch size is 1 to ${MAX_BATCH}`, 'bad_option');
  const concurrency = opts.concurrency ?? DEFAULT_CONCURRENCY;
  const maxPaths = opts.maxPaths ?? DEFAULT_MAX_PATHS;
  const extrasMode: ExtrasMode = opts.extras ?? 'count';
  if (!(EXTRAS_MODES as readonly string[]).includes(extrasMode)) throw new ReconcileError(`--extras is one of ${EXTRAS_MODES.join(', ')}`, 'bad_option');
  const input = path.resolve(opts.input);
  const statePath = opts.statePath ?? `${opts.input}.reconcile-state.ndjson`;
  const reportPrefix = reportPrefixOf(opts.reportPrefix ?? `${opts.input}.reconcile`);
  const apiUrl = opts.apiUrl ?? DEFAULT_API_URL;

  const size = (await isFolder(input)) ? await countInput(input) : fs.statSync(input).size;
  const header: StateHeader = { kind: 'header', version: 1, input, size, batch_size: batchSize, ...(opts.tranche ? { tranche: describeTranche(opts.tranche) } : {}) };

  const classes: Record<AccountClass | 'extra', number> = { matched: 0, missing: 0, not_final: 0, failed: 0, mismatched: 0, extra: 0 };
  const failedCodes: Record<string, number> = {};
  let source = emptyTotals();
  let platform = emptyTotals();
  const count = (r: AccountResult) => {
    if (r.class === 'book_error') return;
    classes[r.class]++;
    if (r.class === 'failed' && r.error_code) failedCodes[r.error_code] = (failedCodes[r.error_code] ?? 0) + 1;
  };
  /** The first accounts that are not matched, for the terminal (the report has them all). */
  const findings: ReconcileSummary['findings'] = [];
  const note = (r: AccountResult) => {
    if (r.class === 'matched' || findings.length >= MAX_FINDINGS) return;
    const detail = r.class === 'mismatched' ? (r.paths ?? []).map((p) => p.path).slice(0, 3).join(', ') + ((r.paths_count ?? 0) > 3 ? ', …' : '') : (r.error_code ?? r.status ?? '');
    findings.push({ import_supplier: r.import_supplier, external_account_number: r.external_account_number, class: r.class, detail });
  };
  const phases = new Phases();
  const reading = phases.start('reading the book', 'records');
  const digesting = phases.start('digests', 'accounts');
  /** Per supplier of the book, the totals of its book accounts found on the platform (a batch is of one supplier). */
  const foundBySupplier = new Map<string, Totals>();
  const take = (line: BatchLine) => {
    for (const r of line.results) {
      count(r);
      note(r);
    }
    digesting.done += line.results.length;
    source = addTotals(source, line.source);
    platform = addTotals(platform, line.platform);
    const supplier = line.results[0]?.import_supplier;
    if (supplier !== undefined) foundBySupplier.set(supplier, addTotals(foundBySupplier.get(supplier) ?? ZERO, line.platform));
  };

  // What an earlier run finished: counted now, not asked again (resume.ts).
  const { state, done } = await resumeState(statePath, header, opts.restart === true, take);
  const resumed = done.size;
  const resumedAccounts = CLASSES.reduce((n, c) => n + classes[c], 0);

  const stop = new AbortController();
  const onAbort = () => stop.abort();
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  let apiUnavailable: ApiUnavailableError | null = null;
  const api = new ApiClient({
    apiUrl,
    apiKey: opts.apiKey,
    connections: concurrency * 2 + ACCOUNT_READS,
    maxRetries: opts.maxRetries ?? 6,
    backoffBaseMs: opts.backoffBaseMs ?? 250,
    backoffCapMs: opts.backoffCapMs ?? 20_000,
    signal: stop.signal,
    outage: {
      timeoutMs: (opts.outageTimeoutMs ?? 30 * 60_000) > 0 ? (opts.outageTimeoutMs ?? 30 * 60_000) : null,
      log,
      onGiveUp: (err) => {
        apiUnavailable = err;
        stop.abort();
      },
    },
  });
  const requests = { digests: 0, accounts: 0, listing: 0, totals: 0 };
  const bookErrors: AccountResult[] = [];
  /** Every account key of the book (supplier NUL external): duplicates, and extra accounts. */
  const bookKeys = new KeySet();
  const suppliers = new Set<string>();
  let batchesDone = 0;

  let total: number | null = null;
  void countInput(input).then(
    (n) => {
      reading.total = n;
      // Of a tranche, how many accounts of the book are in it is known only once it is read.
      if (opts.tranche) return;
      total = n;
      digesting.total = n;
    },
    () => undefined,
  );

  const readAccount = accountReader(api, { onRequest: () => requests.accounts++, unexpected });

  // Each batch checked (batches.ts), its line saved to the state and counted; a few at a time, the first failure stops the run.
  const batches = new BatchPool(concurrency, stop, (no) => done.has(no), async (batch) => {
    const line = await checkBatch(batch, { api, phases, requests, readAccount, maxPaths });
    state.append(line);
    take(line);
    batchesDone++;
  });
  const progress = startProgress(
    opts.progress ?? 'auto',
    {
      total: () => total,
      done: () => CLASSES.reduce((n, c) => n + classes[c], 0) + bookErrors.length,
      counts: () => ({ ...classes }),
      following: () => batches.inFlight,
      outage: () => api.outage(),
      phases: () => phases.all(),
    },
    log,
  );

  const batcher = new Batcher(batchSize, (no) => done.has(no));
  try {
    for await (const rec of digestedRecords(input, opts.threads ?? defaultThreads())) {
      if (stop.signal.aborted) break;
      reading.done++;
      if (rec.kind === 'parse_error') {
        digesting.done++;
        // As migrate's report: the external account number column names the line (or file).
        bookErrors.push({ import_supplier: '', external_account_number: rec.where, where: rec.where, class: 'book_error', status: null, kraken_identifier: null, error_code: 'parse_error' });
        continue;
      }
      if (opts.tranche && !inTranche(opts.tranche, rec.external)) continue;
      const key = `${rec.supplier}\u0000${rec.external}`;
      if (!bookKeys.add(key)) {
        digesting.done++;
        bookErrors.push({ import_supplier: rec.supplier, external_account_number: rec.external, where: rec.where, class: 'book_error', status: null, kraken_identifier: null, error_code: 'duplicate_in_book' });
        continue;
      }
      suppliers.add(rec.supplier);
      const full = batcher.add(rec);
      if (full) await batches.schedule(full);
    }
    for (const batch of batcher.rest()) {
      if (stop.signal.aborted) break;
      await batches.schedule(batch);
    }
    await batches.drain();

    phases.end('reading the book');
    phases.end('digests');
    phases.end('mismatched accounts');
    if (apiUnavailable !== null) throw apiUnavailable;

    // The supplier's accounts outside the book, in bulk (extras.ts); interrupted while asking, the
    // batches are saved and the accounts outside the book are asked about again.
    const outsideBook = new OutsideTheBook({ api, phases, requests, bookKeys, foundBySupplier });
    const { extras, listingUnavailable, totalsUnavailable } = outsideBook;
    if (extrasMode !== 'off' && batches.failure === null && !stop.signal.aborted) {
      try {
        const sorted = [...suppliers].sort();
        await outsideBook.askTotals(sorted);
        if (extrasMode === 'list') {
          await outsideBook.list(sorted);
          for (const e of extras) {
            count(e);
            note(e);
          }
          if (listingUnavailable.length === 0) outsideBook.outside = extras.length;
        } else if (outsideBook.outside !== null) {
          classes.extra = outsideBook.outside;
        }
      } catch (err) {
        if (!(err instanceof AbortedError) || apiUnavailable !== null) throw err;
        extras.length = 0;
      }
    }
    const { supplierTotalsSum, outside } = outsideBook;
    phases.endAll();
    if (batches.failure !== null) throw batches.failure;

    const interrupted = stop.signal.aborted;
    const bookAccounts = CLASSES.reduce((n, c) => n + classes[c], 0);
    const durationMs = Date.now() - started;
    // The book alone: every account matched, no book error, the book's totals those of its accounts as stored.
    const bookClean = bookAccounts === classes.matched && bookErrors.length === 0 && totalsEqual(source, platform);
    // The whole supplier (--extras list): nothing outside the book, and the supplier's totals the book's.
    const wholeClean = extrasMode !== 'list' || (extras.length === 0 && listingUnavailable.length === 0 && (supplierTotalsSum === null || totalsEqual(source, supplierTotalsSum)));
    const verdict: ReconcileSummary['verdict'] = interrupted ? 'interrupted' : !bookClean ? 'findings' : !wholeClean ? 'extras' : 'matched';
    const summary: ReconcileSummary = {
      input: opts.input,
      apiUrl,
      classes,
      bookErrors: bookErrors.length,
      failedCodes,
      findings: [...findings, ...bookErrors.slice(0, Math.max(0, MAX_FINDINGS - findings.length)).map((b) => ({ import_supplier: b.import_supplier, external_account_number: b.external_account_number, class: b.class, detail: b.error_code ?? '' }))],
      totals: { source, platform, supplier: supplierTotalsSum },
      extrasMode,
      outside,
      verdict,
      allMatched: verdict === 'matched',
      durationMs,
      accountsPerSecond: durationMs > 0 ? Math.round(((bookAccounts - resumedAccounts) / durationMs) * 10_000) / 10 : 0,
      batches: { done: batchesDone, resumed },
      requests,
      interrupted,
      listingUnavailable,
      totalsUnavailable,
      phases: phases.timings(),
      statePath: interrupted ? statePath : null,
      reportJson: `${reportPrefix}.json`,
      reportCsv: `${reportPrefix}.csv`,
    };
    state.close();
    await writeReport(summary, async function* () {
      for await (const line of readBatches(statePath)) yield* line.results;
      yield* bookErrors;
      yield* extras;
    });
    if (!interrupted) state.remove();
    return summary;
  } catch (err) {
    try {
      state.close();
    } catch {
      /* closed already */
    }
    if (apiUnavailable !== null) throw new ReconcileError(`${(apiUnavailable as Error).message}: run the same command again to resume`, 'api_unavailable');
    throw err;
  } finally {
    progress.stop();
    opts.signal?.removeEventListener('abort', onAbort);
    await api.close();
  }
}
