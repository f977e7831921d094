import { AbortedError, sleep } from './backoff';

/**
 * Whether the API answers, shared by every request of a run: the bulk client waits out an outage
 * instead of failing the accounts it happens to be sending.
 *
 * A request that gets no HTTP answer (connection refused or reset, timeout), or the third 5xx in a
 * row with no other answer in between, opens an outage: no request is sent any more, and a probe
 * (GET /readyz) goes out after 1 s, 2 s, 4 s ... (capped, with jitter) until the API answers it
 * with anything but a 5xx; then everything resumes. A failure that opens or falls inside an
 * outage does not count against the request's own retry bound; a 5xx while other requests are
 * answered is about that request and does (api.ts). An outage longer than `timeoutMs` stops the
 * run (ApiUnavailableError): accounts are then reported with the code `api_unavailable`, not FAILED.
 */

/** The run stopped because the API stayed unavailable for longer than the outage timeout. */
export class ApiUnavailableError extends AbortedError {
  readonly code = 'api_unavailable';
  constructor(
    readonly since: number,
    readonly reason: string,
  ) {
    super();
    this.message = `the API has been unavailable since ${clock(since)} (${reason})`;
  }
}

export interface OutageView {
  since: number;
  reason: string;
  /** When the next probe goes out (null: one is out now). */
  nextProbeAt: number | null;
}

/** One look at the API: null when it answers, else why not. */
export type Probe = () => Promise<string | null>;

export interface AvailabilityOptions {
  probe: Probe;
  probeBaseMs: number;
  probeCapMs: number;
  /** Longest outage waited out; null: no bound. */
  timeoutMs: number | null;
  signal: AbortSignal;
  log: (line: string) => void;
  /** Called once when an outage outlasts timeoutMs. */
  onGiveUp: (err: ApiUnavailableError) => void;
  random?: () => number;
}

/** 5xx answers in a row, with no other answer between them, that make an outage. */
export const OUTAGE_AFTER_5XX = 3;

interface Down {
  since: number;
  reason: string;
  nextProbeAt: number | null;
  /** Aborted when the outage ends (an answer came some other way) or the run stops. */
  ended: AbortController;
  giveUp: NodeJS.Timeout | null;
}

interface Waiter {
  resolve: () => void;
  reject: (err: Error) => void;
}

/** Wall-clock time of day, as the progress line shows it. */
export function clock(ms: number): string {
  return new Date(ms).toTimeString().slice(0, 8);
}

export class Availability {
  private down: Down | null = null;
  /** Failures since the last answer, across all requests. */
  private failuresInRow = 0;
  private waiters: Waiter[] = [];
  private gaveUp: ApiUnavailableError | null = null;
  readonly stats = { count: 0, totalMs: 0, longestMs: 0 };

  constructor(private readonly o: AvailabilityOptions) {
    o.signal.addEventListener(
      'abort',
      () => {
        // The outage timer too: left running, it kept a stopped run's process alive for the rest
        // of --outage-timeout (30 min by default) after its summary was printed.
        if (this.down?.giveUp) clearTimeout(this.down.giveUp);
        this.down?.ended.abort();
        this.rejectAll(this.gaveUp ?? new AbortedError());
      },
      { once: true },
    );
  }

  /** The outage under way, if any. */
  current(): OutageView | null {
    return this.down ? { since: this.down.since, reason: this.down.reason, nextProbeAt: this.down.nextProbeAt } : null;
  }

  /** Resolves when a request may be sent: at once while the API answers, else once the outage is over. */
  admit(): Promise<void> {
    if (this.gaveUp) return Promise.reject(this.gaveUp);
    if (this.o.signal.aborted) return Promise.reject(new AbortedError());
    if (!this.down) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  /** A request got an HTTP answer that is not a 5xx: the API works. */
  answered(): void {
    this.failuresInRow = 0;
    if (this.down) this.recover(this.down);
  }

  /**
   * A request got no answer (`kind` transport), or a 5xx. True when that is (part of) an outage:
   * the caller sends the request again once admitted, without counting it against its retry bound.
   */
  failed(reason: string, kind: 'transport' | 'http'): boolean {
    this.failuresInRow++;
    if (this.down) return true;
    // A 5xx among answers to other requests is about this request (a slow account, a bug).
    if (kind === 'http' && this.failuresInRow < OUTAGE_AFTER_5XX) return false;
    const now = Date.now();
    const down: Down = { since: now, reason, nextProbeAt: null, ended: new AbortController(), giveUp: null };
    this.down = down;
    if (this.o.timeoutMs !== null) down.giveUp = setTimeout(() => this.giveUp(down), this.o.timeoutMs);
    this.o.log(`API unavailable since ${clock(now)} (${reason}): sending paused, probing with backoff${this.o.timeoutMs !== null ? ` for up to ${Math.round(this.o.timeoutMs / 1000)} s` : ''}`);
    void this.probeUntilUp(down);
    return true;
  }

  private async probeUntilUp(d: Down): Promise<void> {
    const random = this.o.random ?? Math.random;
    for (let attempt = 0; this.down === d; attempt++) {
      // Jitter: many clients waiting on one API do not come back in step.
      const delay = Math.round(Math.min(this.o.probeCapMs, this.o.probeBaseMs * 2 ** attempt) * (0.75 + 0.5 * random()));
      d.nextProbeAt = Date.now() + delay;
      try {
        await sleep(delay, d.ended.signal);
      } catch {
        return; // over (answered meanwhile, gave up, or the run stopped)
      }
      d.nextProbeAt = null;
      let why: string | null;
      try {
        why = await this.o.probe();
      } catch (err) {
        why = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      }
      if (this.down !== d) return;
      if (why === null) return this.recover(d);
      d.reason = why;
    }
  }

  private recover(d: Down): void {
    const took = this.record(d);
    this.down = null;
    this.failuresInRow = 0;
    this.o.log(`API answers again after ${(took / 1000).toFixed(1)} s: resuming`);
    const waiting = this.waiters;
    this.waiters = [];
    for (const w of waiting) w.resolve();
  }

  private record(d: Down): number {
    const took = Date.now() - d.since;
    d.ended.abort();
    if (d.giveUp) clearTimeout(d.giveUp);
    this.stats.count++;
    this.stats.totalMs += took;
    this.stats.longestMs = Math.max(this.stats.longestMs, took);
    return took;
  }

  private giveUp(d: Down): void {
    if (this.down !== d) return;
    this.record(d);
    this.gaveUp = new ApiUnavailableError(d.since, d.reason);
    this.o.log(`API still unavailable after ${Math.round((Date.now() - d.since) / 1000)} s (--outage-timeout): stopping; run the same command again to resume`);
    this.rejectAll(this.gaveUp);
    this.o.onGiveUp(this.gaveUp);
  }

  private rejectAll(err: Error): void {
    const waiting = this.waiters;
    this.waiters = [];
    for (const w of waiting) w.reject(err);
  }
}
