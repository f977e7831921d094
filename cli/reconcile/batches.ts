/**
 * The batches of `data-import reconcile`: the book's accounts grouped by supplier into numbered
 * batches of up to --batch-size (the same book gives the same batches, so a re-run skips those an
 * earlier run finished), scheduled a few at a time, and each one checked: one bulk digest request,
 * every account classed (compare.ts), each mismatched one read back for its differing paths.
 */
import type { ApiClient } from '../shared/api';
import { AbortedError } from '../shared/backoff';
import { readText, type TextSource } from '../shared/input';
import type { Phases } from '../shared/phases';
import { classify, type DigestRecord } from './compare';
import type { DigestedRecord } from './digest';
import { unexpected } from './errors';
import { mismatchPaths, type ReadBack } from './readBack';
import type { AccountResult, BatchLine } from './state';
import { accountTotals, addTotals, emptyTotals, type Totals } from './totals';

/** Single-account reads (mismatched accounts) in flight at once, per batch. */
export const ACCOUNT_READS = 8;
const ZERO = emptyTotals();

/**
 * One book account of a batch: its digest and totals worked out as it is read (in worker threads:
 * cli/reconcile/digest.ts), and where its text is in the book (read and parsed again only when it
 * is mismatched): a batch in flight holds no account, whatever the accounts' size.
 */
export interface BookItem {
  external: string;
  where: string;
  digest: string;
  totals: Totals;
  source: TextSource | null;
}

export interface Batch {
  no: number;
  supplier: string;
  items: BookItem[];
}

/**
 * Groups the book's accounts into batches of one supplier. A batch's number is given when its first
 * account is read: the same book gives the same batches. Of a batch an earlier run finished (`isDone`)
 * an account keeps only its number and where it is: its results are in the state.
 */
export class Batcher {
  private readonly buffers = new Map<string, Batch>();
  private nextBatch = 0;

  constructor(
    private readonly batchSize: number,
    private readonly isDone: (no: number) => boolean,
  ) {}

  /** Adds an account; answers its batch once full, else null. */
  add(rec: Extract<DigestedRecord, { kind: 'account' }>): Batch | null {
    let buffer = this.buffers.get(rec.supplier);
    if (!buffer) this.buffers.set(rec.supplier, (buffer = { no: this.nextBatch++, supplier: rec.supplier, items: [] }));
    const skip = this.isDone(buffer.no);
    buffer.items.push({
      external: rec.external,
      where: rec.where,
      digest: skip ? '' : rec.digest,
      totals: skip ? ZERO : rec.totals,
      source: skip ? null : rec.source,
    });
    if (buffer.items.length < this.batchSize) return null;
    this.buffers.delete(rec.supplier);
    return buffer;
  }

  /** The batches not full at the end of the book, in their order, and none kept. */
  rest(): Batch[] {
    const rest = [...this.buffers.values()].sort((a, b) => a.no - b.no);
    this.buffers.clear();
    return rest;
  }
}

/**
 * Batches in flight, at most `concurrency`; a new one waits for room. Batches an earlier run
 * finished are not run. The first failure (an abort is none) stops the run: `failure` holds it.
 */
export class BatchPool {
  private readonly running = new Set<Promise<void>>();
  /** Batches being checked. */
  inFlight = 0;
  failure: unknown = null;

  constructor(
    private readonly concurrency: number,
    private readonly stop: AbortController,
    private readonly isDone: (no: number) => boolean,
    private readonly run: (batch: Batch) => Promise<void>,
  ) {}

  async schedule(batch: Batch): Promise<void> {
    if (this.isDone(batch.no)) return;
    while (this.running.size >= this.concurrency) await Promise.race(this.running);
    if (this.failure !== null || this.stop.signal.aborted) return;
    this.inFlight++;
    const p: Promise<void> = this.run(batch)
      .catch((err: unknown) => {
        if (!(err instanceof AbortedError)) this.failure ??= err;
        this.stop.abort();
      })
      .finally(() => {
        this.inFlight--;
        this.running.delete(p);
      });
    this.running.add(p);
  }

  /** Resolves when every batch scheduled has settled. */
  async drain(): Promise<void> {
    await Promise.all(this.running);
  }
}

/** What checking a batch needs of the run. */
export interface BatchCheck {
  api: Pick<ApiClient, 'call'>;
  phases: Phases;
  /** Counted here: the bulk digest requests. */
  requests: { digests: number };
  readAccount: (supplier: string, external: string) => Promise<ReadBack | null>;
  maxPaths: number;
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

/** Checks one batch: its line of the state (every account's result, the batch's totals both sides). */
export async function checkBatch(batch: Batch, { api, phases, requests, readAccount, maxPaths }: BatchCheck): Promise<BatchLine> {
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
  return { kind: 'batch', batch: batch.no, results, source: batchSource, platform: batchPlatform };
}
