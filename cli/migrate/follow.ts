// long-file (309 lines): one Follower whose ticks, bulk batches, retries and not-found counts share one state.
import { AbortedError } from '../shared/backoff';
import { TransportError, type ApiClient, type ApiResponse } from '../shared/api';

/**
 * Follows submitted accounts to a final status, polling each every `intervalMs`, many accounts per
 * request: the bulk status operation (`POST /v2/data-import/accounts/statuses/`) reports up to
 * MAX_BATCH accounts of one supplier at once, so a run costs a few status requests per poll
 * interval instead of one per account.
 *
 * Time is cut into ticks, TICKS_PER_INTERVAL per poll interval. At each tick the accounts that are
 * due are taken, grouped by supplier, at most `batchSize` a request; at most `concurrency`
 * requests are in flight, the other batches wait for a slot. An account is polled first at the
 * first tick at least `intervalMs` after it was followed, then every `intervalMs` (the tick of a
 * poll plus one interval): the accounts of one tick stay together, and accounts followed within
 * one tick join them.
 *
 * Every answer about an account is applied exactly as the single-status answer was: a record →
 * the StatusHandler (as a 200 of the GET), a number in `not_found` → a 404 (MAX_NOT_FOUND in a
 * row and it is lost), anything else (a 5xx after the retry bound, a transport error, an account
 * the answer forgot) → polled again next time. A server without the bulk operation (404 or 405 to
 * it) is polled account by account with the GET for the rest of the run; a batch the bulk
 * operation refuses (400: a value it cannot take) has its accounts polled with the GET from then on.
 */
export interface FollowItem {
  supplier: string;
  external: string;
  /** When this run's create was answered 201 (latency to PROCESSED is measured from it). */
  createdAt?: number;
  notFound?: number;
}

interface Queued extends FollowItem {
  /** Index of the tick at which the account is next polled. */
  dueTick: number;
  /** Polled alone with the single-status GET: the bulk operation refused a batch it was in. */
  solo?: boolean;
}

/** Verdict of the handler on one status answer: true when the account needs no more polling. */
export type StatusHandler = (item: FollowItem, res: ApiResponse) => boolean;

/** Consecutive 404s after which a submitted import is given up as lost (see run.ts). */
export const MAX_NOT_FOUND = 5;
/** Accounts per bulk status request: the most the operation takes. */
export const MAX_BATCH = 500;
/** Ticks per poll interval: an account waits at most a quarter interval longer to be polled. */
export const TICKS_PER_INTERVAL = 4;

/** What the follower needs of the API client. */
export type StatusApi = Pick<ApiClient, 'status' | 'statuses'>;

export interface FollowerOptions {
  /** Accounts per bulk request; default MAX_BATCH. */
  batchSize?: number;
  /** Told once when the server has no bulk operation. */
  log?: (line: string) => void;
}

interface BulkAnswer {
  results: ({ external_account_number: string } & Record<string, unknown>)[];
  not_found: string[];
}

export class Follower {
  private queue: Queued[] = [];
  /** Earliest dueTick of the queue (Infinity when empty). */
  private minDueTick = Infinity;
  /** Batches taken at a tick, waiting for a request slot; `head` is the next. */
  private waiting: Queued[][] = [];
  private head = 0;
  private waitingItems = 0;
  private inFlightItems = 0;
  private requests = 0;
  private bulk = true;
  private closed = false;
  private failure: { err: unknown } | null = null;
  private wake: { promise: Promise<void>; resolve: () => void } = deferred();
  private readonly origin = Date.now();
  private readonly tickMs: number;
  private readonly batchSize: number;

  constructor(
    private readonly api: StatusApi,
    private readonly intervalMs: number,
    private readonly concurrency: number,
    private readonly signal: AbortSignal,
    private readonly onStatus: StatusHandler,
    private readonly onLost: (item: FollowItem) => void,
    private readonly opts: FollowerOptions = {},
  ) {
    this.tickMs = intervalMs / TICKS_PER_INTERVAL;
    this.batchSize = Math.max(1, Math.min(MAX_BATCH, opts.batchSize ?? MAX_BATCH));
    signal.addEventListener('abort', () => this.wakeAll(), { once: true });
  }

  /** Accounts followed and not final yet (queued, waiting for a slot, or in a request). */
  get size(): number {
    return this.queue.length + this.waitingItems + this.inFlightItems;
  }

  /** False once the server turned out to have no bulk status operation. */
  get usesBulk(): boolean {
    return this.bulk;
  }

  follow(item: FollowItem): void {
    // The first tick at least one interval from now.
    this.push({ ...item, dueTick: Math.ceil((Date.now() + this.intervalMs - this.origin) / this.tickMs - 1e-9) });
    this.wakeAll();
  }

  /** No more items will be added: run() resolves once every account is final. */
  close(): void {
    this.closed = true;
    this.wakeAll();
  }

  async run(): Promise<void> {
    while (!this.signal.aborted && !this.failure) {
      if (this.closed && this.size === 0) break;
      const tick = this.tickAt(Date.now());
      if (this.minDueTick <= tick) this.takeDue(tick);
      this.dispatch();
      const wake = this.wake.promise;
      if (this.minDueTick === Infinity) {
        await wake;
      } else {
        const ms = Math.max(0, Math.ceil(this.origin + this.minDueTick * this.tickMs - Date.now()));
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([wake, new Promise<void>((r) => (timer = setTimeout(r, ms)))]);
        clearTimeout(timer);
      }
    }
    while (this.requests > 0) await this.wake.promise;
    if (this.failure) throw this.failure.err;
  }

  private tickAt(ms: number): number {
    return Math.floor((ms - this.origin) / this.tickMs + 1e-9);
  }

  private push(q: Queued): void {
    this.queue.push(q);
    if (q.dueTick < this.minDueTick) this.minDueTick = q.dueTick;
  }

  private wakeAll(): void {
    const w = this.wake;
    this.wake = deferred();
    w.resolve();
  }

  /** Moves the accounts due at `tick` into batches: by supplier, at most batchSize each. */
  private takeDue(tick: number): void {
    const later: Queued[] = [];
    const groups = new Map<string, Queued[]>();
    let min = Infinity;
    for (const q of this.queue) {
      if (q.dueTick > tick) {
        later.push(q);
        if (q.dueTick < min) min = q.dueTick;
      } else if (!this.bulk || q.solo) {
        this.enqueue([q]);
      } else {
        const group = groups.get(q.supplier) ?? [];
        group.push(q);
        if (group.length >= this.batchSize) {
          this.enqueue(group);
          groups.delete(q.supplier);
        } else {
          groups.set(q.supplier, group);
        }
      }
    }
    for (const group of groups.values()) this.enqueue(group);
    this.queue = later;
    this.minDueTick = min;
  }

  private enqueue(batch: Queued[], first = false): void {
    if (first && this.head > 0) this.waiting[--this.head] = batch;
    else if (first) this.waiting.unshift(batch);
    else this.waiting.push(batch);
    this.waitingItems += batch.length;
  }

  /** Sends waiting batches while fewer than `concurrency` requests are in flight. */
  private dispatch(): void {
    while (this.requests < this.concurrency && this.head < this.waiting.length && !this.signal.aborted) {
      let batch = this.waiting[this.head]!;
      this.waiting[this.head++] = []; // let it be collected
      this.waitingItems -= batch.length;
      if (!this.bulk && batch.length > 1) {
        // Taken before the server turned out to have no bulk operation: one GET each.
        for (let i = batch.length - 1; i >= 1; i--) this.enqueue([batch[i]!], true);
        batch = [batch[0]!];
      }
      if (this.head > 1024 && this.head * 2 > this.waiting.length) {
        this.waiting = this.waiting.slice(this.head);
        this.head = 0;
      }
      const sent = batch;
      this.requests++;
      this.inFlightItems += sent.length;
      this.send(sent)
        .catch((err: unknown) => {
          if (!(err instanceof AbortedError)) this.failure ??= { err };
        })
        .finally(() => {
          this.requests--;
          this.inFlightItems -= sent.length;
          this.wakeAll();
        });
    }
  }

  /** Polled again one interval after the tick of this poll. */
  private again(q: Queued, tick: number): void {
    if (!this.signal.aborted) this.push({ ...q, dueTick: tick + TICKS_PER_INTERVAL });
  }

  private async send(batch: Queued[]): Promise<void> {
    const tick = this.tickAt(Date.now());
    const first = batch[0]!;
    if (batch.length === 1 && (!this.bulk || first.solo)) {
      if (await this.pollOne(first)) this.again(first, tick);
      return;
    }
    let res: ApiResponse;
    try {
      res = await this.api.statuses(first.supplier, batch.map((q) => q.external));
    } catch (err) {
      // The retry bound of the request is spent; the accounts are still followed (--timeout bounds it).
      if (err instanceof TransportError) return batch.forEach((q) => this.again(q, tick));
      throw err;
    }
    if (res.status === 404 || res.status === 405) {
      // A server from before the bulk operation: the GET for every account from now on.
      if (this.bulk) {
        this.bulk = false;
        this.opts.log?.(`the API has no bulk status operation (POST /v2/data-import/accounts/statuses/ answered ${res.status}): polling account by account`);
      }
      for (let i = batch.length - 1; i >= 0; i--) this.enqueue([batch[i]!], true);
      return;
    }
    if (res.status === 400) {
      // A value the bulk operation cannot take (a NUL byte, a number too long): these accounts go
      // back to the GET, which answers them as before; the batch is not refused again.
      for (let i = batch.length - 1; i >= 0; i--) this.enqueue([{ ...batch[i]!, solo: true }], true);
      return;
    }
    const answer = res.status === 200 ? bulkAnswer(res.body) : null;
    if (!answer) return batch.forEach((q) => this.again(q, tick));
    const open = new Map(batch.map((q) => [q.external, q]));
    for (const record of answer.results) {
      const q = open.get(record.external_account_number);
      if (!q) continue;
      open.delete(q.external);
      if (!this.onStatus(q, { status: 200, body: record, headers: res.headers })) this.again(q, tick);
    }
    for (const external of answer.not_found) {
      const q = open.get(external);
      if (!q) continue;
      open.delete(external);
      if (this.notFound(q)) this.again(q, tick);
    }
    for (const q of open.values()) this.again(q, tick);
  }

  /** The single-status GET of one account; true when it must be polled again. */
  private async pollOne(item: Queued): Promise<boolean> {
    let res: ApiResponse;
    try {
      res = await this.api.status(item.supplier, item.external);
    } catch (err) {
      if (err instanceof TransportError) return true;
      throw err;
    }
    if (res.status === 200) return !this.onStatus(item, res);
    if (res.status === 404) return this.notFound(item);
    return true;
  }

  /** One more "no import process"; true while the account is still followed. */
  private notFound(item: Queued): boolean {
    item.notFound = (item.notFound ?? 0) + 1;
    if (item.notFound < MAX_NOT_FOUND) return true;
    this.onLost(item);
    return false;
  }
}

function bulkAnswer(body: unknown): BulkAnswer | null {
  const b = body as Partial<BulkAnswer> | null;
  if (!b || typeof b !== 'object' || !Array.isArray(b.results) || !Array.isArray(b.not_found)) return null;
  return {
    results: b.results.filter((r) => r && typeof r === 'object' && typeof r.external_account_number === 'string'),
    not_found: b.not_found.filter((n): n is string => typeof n === 'string'),
  };
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
