/**
 * The submitting window of `data-import migrate`: the records of the book are handled at most
 * `concurrency` at once, and no new one starts while the imports submitted and not yet final
 * (`following()`) plus those being sent reach `maxInFlight` (back-pressure: submit no faster than
 * imports finish, so the service is never handed a queue it cannot work off; a queue only adds
 * latency, never throughput).
 */
export interface WindowOptions {
  concurrency: number;
  maxInFlight: number;
  /** Imports submitted and followed, not yet final. */
  following: () => number;
  /** Aborted: no more waiting for room. */
  signal: AbortSignal;
  /** Called as each handled record settles. */
  onSettled?: () => void;
}

/** How often a full window looks for room. */
const ROOM_POLL_MS = 25;

export class SubmitWindow {
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly opts: WindowOptions) {}

  /** Waits for room, starts `handle`, and returns once fewer than `concurrency` are being handled. */
  async submit(handle: () => Promise<void>): Promise<void> {
    const { concurrency, maxInFlight, following, signal, onSettled } = this.opts;
    while (following() + this.inFlight.size >= maxInFlight && !signal.aborted) await new Promise((r) => setTimeout(r, ROOM_POLL_MS));
    const p: Promise<void> = handle().finally(() => {
      this.inFlight.delete(p);
      onSettled?.();
    });
    this.inFlight.add(p);
    if (this.inFlight.size >= concurrency) await Promise.race(this.inFlight);
  }

  /** Resolves when every record started has been handled. */
  async drain(): Promise<void> {
    await Promise.all(this.inFlight);
  }
}
