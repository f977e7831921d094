// long-file (519 lines): reconcile's one run (the book, bulk digests per supplier, extras, totals, resume) reads top to bottom.
import fs from 'node:fs';
import path from 'node:path';
import { ApiClient, DEFAULT_API_URL, errorCode, errorDetail, type ApiResponse } from '../shared/api';
import { AbortedError } from '../shared/backoff';
import { reportPrefixOf } from '../shared/report';
import { ApiUnavailableError } from '../shared/availability';
import { countInput, isFolder, readText, type TextSource } from '../shared/input';
import { describeTranche, inTranche, type Tranche } from '../../lib/tranche';
import { defaultThreads, digestedRecords } from './digest';
import { KeySet } from './keySet';
import { startProgress } from '../shared/progress';
import { Phases } from '../shared/phases';
import { CLASSES, classify, type AccountClass, type DigestRecord } from './compare';
import { accountReader, mismatchPaths } from './readBack';
import { formatSummary, writeReport, type ReconcileSummary } from './report';
import { readBatches, ReconcileState, type AccountResult, type BatchLine, type StateHeader } from './state';
import { accountTotals, addTotals, emptyTotals, totalsEqual, type Totals } from './totals';

export { formatSummary, type ReconcileSummary };

/** Accounts per bulk digest request: the operation's maximum. */
export const MAX_BATCH = 500;
/** Bulk digest requests in flight at once. */
export const DEFAULT_CONCURRENCY = 4;
/** Differing paths reported per mismatched account. */
export const DEFAULT_MAX_PATHS = 50;
const ZERO = emptyTotals();
/** Accounts not matched named on the terminal. */
const MAX_FINDINGS = 5;
/** Page size of the listing of imported accounts. */
const LISTING_PAGE = 10_000;
/** Single-account reads (mismatched and extra accounts) in flight at once. */
const ACCOUNT_READS = 8;

export interface ReconcileOptions {
  /** NDJSON file (one account per line) or a folder of `*.json` files: the book, as migrate reads it. */
  input: string;
  apiUrl?: string;
  apiKey?: string;
  /** Bulk digest requests in flight at once; default 4. */
  concurrency?: number;
  /** Worker threads parsing and hashing the book; default defaultThreads() (0: this thread). */
  threads?: number;
  /** Accounts per bulk digest request, 1–500; default 500. */
  batchSize?: number;
  /** Default `<input>.reconcile-state.ndjson`. */
  statePath?: string;
  /** Default `<input>.reconcile` (→ .json and .csv). */
  reportPrefix?: string;
  /** Ignore (and replace) the state of an earlier run. */
  restart?: boolean;
  maxPaths?: number;
  /**
   * What is asked about the supplier's accounts outside the book (docs/bulk-migration.md,
   * "Tranches"): `count` (default) one totals request per supplier: how many there are and the
   * supplier's totals, beside the book's, not a finding (a tranche is signed off alone); `list`
   * the whole supplier is signed off: each one listed in the report as `extra` (the listing, paged),
   * the platform's totals are the supplier's, and any extra account is a finding (exit 3); `off`
   * nothing asked.
   */
  extras?: ExtrasMode;
  maxRetries?: number;
  backoffBaseMs?: number;
  backoffCapMs?: number;
  /** Longest API outage waited out; default 30 minutes; 0: wait for ever. */
  outageTimeoutMs?: number;
  signal?: AbortSignal;
  progress?: 'auto' | 'plain' | 'none';
  /** Only the book's accounts in this tranche (lib/tranche.ts: the selection map and migrate make). */
  tranche?: Tranche;
  log?: (line: string) => void;
}

export const EXTRAS_MODES = ['off', 'count', 'list'] as const;
export type ExtrasMode = (typeof EXTRAS_MODES)[number];

export class ReconcileError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

/**
 * One book account of a batch: its digest and totals worked out as it is read (in worker threads:
 * cli/reconcile/digest.ts), and where its text is in the book (read and parsed again only when it
 * is mismatched): a batch in flight holds no account, whatever the accounts' size.
 */
interface BookItem {
  external: string;
  where: string;
  digest: string;
  totals: Totals;
  source: TextSource | null;
}

interface Batch {
  no: number;
  supplier: string;
  items: BookItem[];
}

/** The bulk operation's limits (imports/http/schemas.ts StatusesRequestSchema): longer keys cannot exist. */
const sendable = (supplier: string, external: string) => supplier.length <= 64 && external.length <= 128 && !external.includes('\u0000');

/** Runs `fn` over `items`, at most `limit` at a time. */
async function eachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

function unexpected(what: string, res: ApiResponse): ReconcileError {
  const code = errorCode(res.body) ?? `http_${res.status}`;
  return new ReconcileError(`${what} answered ${res.status} ${code}: ${errorDetail(res.body)}`.trim(), code);
}

/**
 * `data-import reconcile`: reads the book, asks the bulk digest operation about its accounts in
 * batches of up to 500 of one supplier, classes every account (cli/reconcile/compare.ts), reads
 * each mismatched one with the single-account operation for its differing paths, lists the
 * supplier's imported accounts for the extra ones, and writes the report. Resumable: see state.ts.
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
  const state = await ReconcileState.open(statePath, header, opts.restart === true);

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

  // What an earlier run finished: counted now, not asked again.
  const done = new Set<number>();
  for await (const line of readBatches(statePath)) {
    done.add(line.batch);
    take(line);
  }
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
  let inFlight = 0;
  let failure: unknown = null;

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
  const progress = startProgress(
    opts.progress ?? 'auto',
    {
      total: () => total,
      done: () => CLASSES.reduce((n, c) => n + classes[c], 0) + bookErrors.length,
      counts: () => ({ ...classes }),
      following: () => inFlight,
      outage: () => api.outage(),
      phases: () => phases.all(),
    },
    log,
  );

  const readAccount = accountReader(api, { onRequest: () => requests.accounts++, unexpected });

  const runBatch = async (batch: Batch): Promise<void> => {
    const items = batch.items.filter((i) => sendable(batch.supplier, i.external));
    let answer: { results: (DigestRecord & { external_account_number: string })[]; not_found: string[] } = { results: [], not_found: [] };
    if (items.length > 0) {
      requests.digests++;
      const res = await api.call('POST', '/v2/data-import/accounts/digests/', { import_supplier: batch.supplier, external_account_numbers: items.map((i) => i.external) });
      if (res.status !== 200) throw unexpected('POST /v2/data-import/accounts/digests/', res);
      answer = res.body as typeof answer;
    }
    const byNumber = new Map(answer.results.map((r) => [r.external_account_number, r]));
    let batchSource = emptyTotals();
    let batchPlatform = emptyTotals();
    const results: AccountResult[] = [];
    const mismatched: { item: BookItem; result: AccountResult }[] = [];
    for (const item of batch.items) {
      const record = byNumber.get(item.external);
      const c = classify(record, item.digest);
      batchSource = addTotals(batchSource, item.totals);
      if (c.class === 'matched') batchPlatform = addTotals(batchPlatform, item.totals);
      const result: AccountResult = {
        import_supplier: batch.supplier,
        external_account_number: item.external,
        where: item.where,
        class: c.class,
        status: c.status,
        kraken_identifier: record?.kraken_identifier ?? null,
        error_code: c.errorCode,
      };
      results.push(result);
      if (c.class === 'mismatched') mismatched.push({ item, result });
    }
    if (mismatched.length > 0) {
      const reads = phases.start('mismatched accounts', 'read back');
      reads.total = (reads.total ?? 0) + mismatched.length;
    }
    await eachLimited(mismatched, ACCOUNT_READS, async ({ item, result }) => {
      const reads = phases.get('mismatched accounts')!;
      reads.done++;
      const read = await readAccount(batch.supplier, item.external);
      if (read === null) {
        // Gone between the two requests: no account any more.
        Object.assign(result, { class: 'failed', error_code: 'account_not_found' });
        return;
      }
      batchPlatform = addTotals(batchPlatform, accountTotals(read.account));
      const diff = mismatchPaths(JSON.parse(await readText(item.source!)) as unknown, read, maxPaths);
      result.paths = diff.paths;
      result.paths_count = diff.count;
    });
    const line: BatchLine = { kind: 'batch', batch: batch.no, results, source: batchSource, platform: batchPlatform };
    state.append(line);
    take(line);
    batchesDone++;
  };

  // Batches in flight; a new one waits for room. The first failure stops the run.
  const running = new Set<Promise<void>>();
  const schedule = async (batch: Batch) => {
    if (done.has(batch.no)) return;
    while (running.size >= concurrency) await Promise.race(running);
    if (failure !== null || stop.signal.aborted) return;
    inFlight++;
    const p: Promise<void> = runBatch(batch)
      .catch((err: unknown) => {
        if (!(err instanceof AbortedError)) failure ??= err;
        stop.abort();
      })
      .finally(() => {
        inFlight--;
        running.delete(p);
      });
    running.add(p);
  };

  // A batch's number is given when its first account is read: the same book gives the same batches.
  const buffers = new Map<string, Batch>();
  let nextBatch = 0;
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
      let buffer = buffers.get(rec.supplier);
      if (!buffer) buffers.set(rec.supplier, (buffer = { no: nextBatch++, supplier: rec.supplier, items: [] }));
      // Batches an earlier run finished need nothing of the account (their results are in the state).
      const skip = done.has(buffer.no);
      buffer.items.push({
        external: rec.external,
        where: rec.where,
        digest: skip ? '' : rec.digest,
        totals: skip ? ZERO : rec.totals,
        source: skip ? null : rec.source,
      });
      if (buffer.items.length >= batchSize) {
        buffers.delete(rec.supplier);
        await schedule(buffer);
      }
    }
    for (const batch of [...buffers.values()].sort((a, b) => a.no - b.no)) {
      if (stop.signal.aborted) break;
      await schedule(batch);
    }
    buffers.clear();
    await Promise.all(running);

    phases.end('reading the book');
    phases.end('digests');
    phases.end('mismatched accounts');
    if (apiUnavailable !== null) throw apiUnavailable;

    // The supplier's accounts outside the book, in bulk (never one request per account): the
    // totals of each supplier of the book in one request each, then, with --extras list, the
    // listing of its imported accounts, 10,000 a page.
    const extras: AccountResult[] = [];
    const listingUnavailable: string[] = [];
    const totalsUnavailable: string[] = [];
    let supplierTotalsSum: Totals | null = null;
    let outside: number | null = null;
    if (extrasMode !== 'off' && failure === null && !stop.signal.aborted) {
      try {
        const sorted = [...suppliers].sort();
        const totalsPhase = phases.start('totals', 'suppliers', sorted.length);
        let sum = emptyTotals();
        let beyond = 0;
        for (const supplier of sorted) {
          if (supplier.length > 64) {
            totalsUnavailable.push(supplier);
            totalsPhase.done++;
            continue;
          }
          requests.totals++;
          const res = await api.call('POST', '/v2/data-import/accounts/totals/', { import_supplier: supplier });
          totalsPhase.done++;
          if (res.status === 404 || res.status === 405) {
            totalsUnavailable.push(supplier);
            continue;
          }
          if (res.status !== 200) throw unexpected('POST /v2/data-import/accounts/totals/', res);
          const t = totalsOf(res.body);
          sum = addTotals(sum, t);
          beyond += Math.max(0, t.accounts - (foundBySupplier.get(supplier)?.accounts ?? 0));
        }
        phases.end('totals');
        if (totalsUnavailable.length < sorted.length) {
          supplierTotalsSum = sum;
          outside = beyond;
        }
        if (extrasMode === 'list') {
          const listing = phases.start('extras', 'accounts', outside);
          for (const supplier of sorted) {
            let next: string | null = `/v1/data-import/imported-account-import-processes/${encodeURIComponent(supplier)}/?limit=${LISTING_PAGE}`;
            while (next !== null) {
              requests.listing++;
              const res = await api.call('GET', next);
              if (res.status === 404) {
                listingUnavailable.push(supplier);
                break;
              }
              if (res.status !== 200) throw unexpected(`GET ${next}`, res);
              for (const item of res.body as { external_account_number: string; kraken_account_number: string | null }[]) {
                if (bookKeys.has(`${supplier}\u0000${item.external_account_number}`)) continue;
                extras.push({ import_supplier: supplier, external_account_number: item.external_account_number, where: null, class: 'extra', status: 'PROCESSED', kraken_identifier: item.kraken_account_number ?? null, error_code: null });
                listing.done++;
              }
              next = nextLink(res.headers.link);
            }
          }
          phases.end('extras');
          for (const e of extras) {
            count(e);
            note(e);
          }
          if (listingUnavailable.length === 0) outside = extras.length;
        } else if (outside !== null) {
          classes.extra = outside;
        }
      } catch (err) {
        // Interrupted while asking: the batches are saved; the accounts outside the book are asked about again.
        if (!(err instanceof AbortedError) || apiUnavailable !== null) throw err;
        extras.length = 0;
      }
    }
    phases.endAll();
    if (failure !== null) throw failure;

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

/** The totals operation's answer as Totals (a count that is not a number counts 0). */
function totalsOf(body: unknown): Totals {
  const b = (body ?? {}) as Record<string, unknown>;
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  const d = (v: unknown) => (typeof v === 'string' ? v : '0');
  return { accounts: n(b.accounts), customers: n(b.customers), meter_points: n(b.meter_points), meters: n(b.meters), registers: n(b.registers), ledger_balances: d(b.ledger_balances), debts: d(b.debts) };
}

/** The `rel="next"` target of a Link header, or null. */
export function nextLink(link: string | string[] | undefined): string | null {
  const v = Array.isArray(link) ? link.join(', ') : link;
  if (!v) return null;
  const m = /<([^>]+)>\s*;\s*rel="?next"?/.exec(v);
  return m ? m[1]! : null;
}
