/**
 * How many bytes of account payloads one process holds in memory at once: the worker's stored
 * payloads (WORKER_PAYLOAD_BUDGET, activities/imports) and the API's request bodies
 * (API_BODY_BUDGET, http/middleware/jsonBody.ts).
 *
 * Both run with a capped V8 heap by default (lib/nodeOptions.ts), which keeps their resident
 * memory flat; a budget is what makes that cap safe. An account's payload of N bytes of JSON takes
 * several times N once parsed, validated and turned into insert statements, so 32 imports of
 * megabyte-sized accounts at once would exhaust the cap. Payloads up to `inlineBytes` (every
 * typical or large account: 24 KB and 164 KB) never wait; those are bounded by the concurrency. A
 * larger payload is read only once the budget has room for its size, first come first served; one
 * larger than the whole budget waits until it can hold the whole budget alone. A payload of
 * unknown size (a run stored before its size was recorded, a chunked body) counts as the whole
 * budget.
 */
export class PayloadBudget {
  private held = 0;
  private readonly heldBy = new Map<string, number>();
  private readonly queue: Waiter[] = [];
  /** Bytes one owner (an organisation) may hold at once; see the constructor. */
  readonly ownerShareBytes: number;

  constructor(
    /** Bytes of above-threshold payloads held at once. */
    readonly limitBytes: number,
    /** Payloads up to this size are read without waiting. */
    readonly inlineBytes: number = DEFAULT_INLINE_BYTES,
    /**
     * Bytes one owner (the API: an organisation) holds at once, default no share (the worker). An owner
     * holding nothing may always take one payload of any size (up to the budget); a second one
     * waits while the owner's share is full, without holding up other owners' payloads behind it.
     */
    ownerShareBytes?: number,
  ) {
    if (!(limitBytes > 0)) throw new RangeError('the payload budget must be positive');
    this.ownerShareBytes = ownerShareBytes ?? Infinity;
  }

  /** Bytes held now by payloads above the threshold. */
  get heldBytes(): number {
    return this.held;
  }

  /** Payloads waiting for room. */
  get waiting(): number {
    return this.queue.length;
  }

  /** Whether a payload of this size (null: unknown) is read without the budget. */
  isInline(bytes: number | null): boolean {
    return bytes !== null && bytes <= this.inlineBytes;
  }

  /** Runs `fn` at once for a payload up to the threshold, else while `bytes` of the budget are held. */
  admit<T>(bytes: number | null, fn: () => Promise<T>, opts: HoldOptions = {}): Promise<T> {
    return this.isInline(bytes) ? fn() : this.hold(bytes, fn, opts);
  }

  /**
   * Runs `fn` while `bytes` (null: unknown, the whole budget) of the budget are held. The share is
   * released when `fn` settles, however it settles; `fn` must settle (the API's body read ends
   * with the request: http/middleware/jsonBody.ts). A waiter whose `signal` aborts (the client
   * left, the request timed out) leaves the queue and rejects with the signal's reason.
   */
  async hold<T>(bytes: number | null, fn: () => Promise<T>, opts: HoldOptions = {}): Promise<T> {
    const n = Math.min(bytes ?? this.limitBytes, this.limitBytes);
    const owner = opts.owner ?? '';
    await this.acquire(n, owner, opts.signal);
    try {
      return await fn();
    } finally {
      this.release(n, owner);
    }
  }

  private acquire(n: number, owner: string, signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((grant, reject) => {
      const waiter: Waiter = { bytes: n, owner, grant, reject, signal };
      if (signal) {
        waiter.onAbort = () => {
          const i = this.queue.indexOf(waiter);
          if (i < 0) return;
          this.queue.splice(i, 1);
          reject(signal.reason);
          // A waiter at the head may have held back others that fit.
          this.pump();
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.queue.push(waiter);
      this.pump();
    });
  }

  private ownerFull(w: Waiter): boolean {
    const mine = this.heldBy.get(w.owner) ?? 0;
    return mine > 0 && mine + w.bytes > this.ownerShareBytes;
  }

  /**
   * Grants waiters in arrival order. First come first served: a payload waiting for room in the
   * budget is not overtaken by smaller ones behind it; one waiting only for its owner's share is
   * passed over (its owner's own payloads hold it up, not other owners').
   */
  private pump(): void {
    for (let i = 0; i < this.queue.length; ) {
      const w = this.queue[i]!;
      if (this.ownerFull(w)) {
        i++;
        continue;
      }
      if (this.held + w.bytes > this.limitBytes) return;
      this.queue.splice(i, 1);
      if (w.signal && w.onAbort) w.signal.removeEventListener('abort', w.onAbort);
      this.held += w.bytes;
      this.heldBy.set(w.owner, (this.heldBy.get(w.owner) ?? 0) + w.bytes);
      w.grant();
    }
  }

  private release(n: number, owner: string): void {
    this.held -= n;
    const left = (this.heldBy.get(owner) ?? 0) - n;
    if (left > 0) this.heldBy.set(owner, left);
    else this.heldBy.delete(owner);
    this.pump();
  }
}

export interface HoldOptions {
  /** Who holds the share (the API: the organisation); see `ownerShareBytes`. */
  owner?: string;
  /** Aborted when the payload is no longer wanted: a waiter leaves the queue. */
  signal?: AbortSignal;
}

interface Waiter {
  bytes: number;
  owner: string;
  grant: () => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort?: () => void;
}

/** Read with the run's row, without the budget: above the large profile's 164 KB. */
export const DEFAULT_INLINE_BYTES = 256 * 1024;
