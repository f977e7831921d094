/**
 * How many bytes of account payloads one process holds in memory at once: the worker's stored
 * payloads (WORKER_PAYLOAD_BUDGET, imports/activities) and the API's request bodies
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
  private readonly queue: Array<{ bytes: number; grant: () => void }> = [];

  constructor(
    /** Bytes of above-threshold payloads held at once. */
    readonly limitBytes: number,
    /** Payloads up to this size are read without waiting. */
    readonly inlineBytes: number = DEFAULT_INLINE_BYTES,
  ) {
    if (!(limitBytes > 0)) throw new RangeError('the payload budget must be positive');
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
  admit<T>(bytes: number | null, fn: () => Promise<T>): Promise<T> {
    return this.isInline(bytes) ? fn() : this.hold(bytes, fn);
  }

  /** Runs `fn` while `bytes` (null: unknown, the whole budget) of the budget are held. */
  async hold<T>(bytes: number | null, fn: () => Promise<T>): Promise<T> {
    const n = Math.min(bytes ?? this.limitBytes, this.limitBytes);
    await this.acquire(n);
    try {
      return await fn();
    } finally {
      this.release(n);
    }
  }

  private acquire(n: number): Promise<void> {
    if (this.queue.length === 0 && this.held + n <= this.limitBytes) {
      this.held += n;
      return Promise.resolve();
    }
    return new Promise((grant) => this.queue.push({ bytes: n, grant }));
  }

  private release(n: number): void {
    this.held -= n;
    // First come first served: a large payload at the head is not overtaken by smaller ones.
    while (this.queue.length > 0 && this.held + this.queue[0]!.bytes <= this.limitBytes) {
      const next = this.queue.shift()!;
      this.held += next.bytes;
      next.grant();
    }
  }
}

/** Read with the run's row, without the budget: above the large profile's 164 KB. */
export const DEFAULT_INLINE_BYTES = 256 * 1024;
