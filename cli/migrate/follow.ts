import { AbortedError, sleep } from './backoff';
import { TransportError, type ApiClient, type ApiResponse } from './api';

/**
 * Follows submitted accounts to a final status: each is polled every `intervalMs` by at most
 * `concurrency` pollers at a time. Items wait in one FIFO queue; every item is re-queued with
 * the same interval, so the queue stays ordered by due time and the head is always the next due.
 */
export interface FollowItem {
  supplier: string;
  external: string;
  /** When this run's create was answered 201 (latency to PROCESSED is measured from it). */
  createdAt?: number;
  notFound?: number;
}

interface Queued extends FollowItem {
  due: number;
}

/** Verdict of the handler on one status answer: true when the account needs no more polling. */
export type StatusHandler = (item: FollowItem, res: ApiResponse) => boolean;

/** Consecutive 404s after which a submitted import is given up as lost (see run.ts). */
export const MAX_NOT_FOUND = 5;

export class Follower {
  private items: Queued[] = [];
  private head = 0;
  private active = 0;
  private closed = false;
  private wake: { promise: Promise<void>; resolve: () => void } = deferred();

  constructor(
    private readonly api: ApiClient,
    private readonly intervalMs: number,
    private readonly concurrency: number,
    private readonly signal: AbortSignal,
    private readonly onStatus: StatusHandler,
    private readonly onLost: (item: FollowItem) => void,
  ) {
    signal.addEventListener('abort', () => this.wakeAll(), { once: true });
  }

  get size(): number {
    return this.items.length - this.head + this.active;
  }

  follow(item: FollowItem): void {
    this.items.push({ ...item, due: Date.now() + this.intervalMs });
    this.wakeAll();
  }

  /** No more items will be added: run() resolves once the queue drains. */
  close(): void {
    this.closed = true;
    this.wakeAll();
  }

  run(): Promise<void> {
    return Promise.all(Array.from({ length: this.concurrency }, () => this.worker())).then(() => undefined);
  }

  private wakeAll(): void {
    const w = this.wake;
    this.wake = deferred();
    w.resolve();
  }

  private async worker(): Promise<void> {
    while (!this.signal.aborted) {
      const next = this.items[this.head];
      if (!next) {
        if (this.closed && this.active === 0) {
          this.wakeAll();
          return;
        }
        await this.wake.promise;
        continue;
      }
      const delay = next.due - Date.now();
      if (delay > 0) {
        await Promise.race([sleep(delay, this.signal).catch(() => undefined), this.wake.promise]);
        continue;
      }
      this.take();
      this.active++;
      let again = false;
      try {
        again = await this.pollOnce(next);
      } catch (err) {
        if (!(err instanceof AbortedError)) throw err;
      } finally {
        this.active--;
      }
      if (again && !this.signal.aborted) this.items.push({ ...next, due: Date.now() + this.intervalMs });
      this.wakeAll();
    }
  }

  private take(): void {
    this.head++;
    // Compact now and then: the array would otherwise grow with every poll.
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }

  /** True when the item must be polled again. */
  private async pollOnce(item: Queued): Promise<boolean> {
    let res: ApiResponse;
    try {
      res = await this.api.status(item.supplier, item.external);
    } catch (err) {
      // The retry bound of one poll is spent; the account is still followed (--timeout bounds it).
      if (err instanceof TransportError) return true;
      throw err;
    }
    if (res.status === 200) return !this.onStatus(item, res);
    if (res.status === 404) {
      item.notFound = (item.notFound ?? 0) + 1;
      if (item.notFound < MAX_NOT_FOUND) return true;
      this.onLost(item);
      return false;
    }
    return true;
  }
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
