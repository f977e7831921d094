import { AbortedError } from './backoff';

/**
 * Whether the API answers, shared by every request of a run: the bulk client waits out an outage
 * instead of failing the accounts it happens to be sending.
 *
 * A request that gets no HTTP answer (connection refused or reset, timeout), or the third 5xx in a
 * row with no other answer in between, opens an outage: from then on no request is sent except
 * one probe at a time — the next request in line — after 1 s, 2 s, 4 s ... (capped, with jitter).
 * The first answer that is not a 5xx ends the outage and everything resumes. A failure that opens
 * or falls inside an outage does not count against the request's own retry bound; a 5xx while
 * other requests are answered is about that request and does (api.ts). An outage longer than
 * `timeoutMs` stops the run (ApiUnavailableError): accounts are then reported with the code
 * `api_unavailable`, not FAILED.
 */

/** The run stopped because the API stayed unavailable for longer than the outage timeout. */
export class ApiUnavailableError extends AbortedError {
  readonly code = 'api_unavailable';
  constructor(readonly since: number, readonly reason: string) {
    super();
    this.message = `the API has been unavailable since ${clock(since)} (${reason})`;
  }
}

export interface Ticket {
  /** This request is the outage's probe. */
  probe: boolean;
  settled: boolean;
}

export interface OutageView {
  since: number;
  reason: string;
  /** When the next probe goes out (null: one is out now). */
  nextProbeAt: number | null;
}

export interface AvailabilityOptions {
  probeBaseMs: number;
  probeCapMs: number;
  /** Longest outage waited out; null: no bound. */
  timeoutMs: number | null;
  signal: AbortSignal;
  log: (line: string) => void;
  /** Called once when the outage outlasts timeoutMs. */
  onGiveUp: (err: ApiUnavailableError) => void;
  random?: () => number;
}

interface Down {
  since: number;
  reason: string;
  attempt: number;
  probeOut: boolean;
  /** The probe is due but no request was waiting: the next one to arrive goes. */
  probeDue: boolean;
  nextProbeAt: number | null;
  timer: NodeJS.Timeout | null;
  giveUp: NodeJS.Timeout | null;
}

/** 5xx answers in a row, with no other answer between them, that make an outage. */
export const OUTAGE_AFTER_5XX = 3;

interface Waiter {
  resolve: (t: Ticket) => void;
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
    o.signal.addEventListener('abort', () => this.rejectAll(new AbortedError()), { once: true });
  }

  /** The outage under way, if any. */
  current(): OutageView | null {
    return this.down ? { since: this.down.since, reason: this.down.reason, nextProbeAt: this.down.probeOut ? null : this.down.nextProbeAt } : null;
  }

  /** Resolves when a request may be sent: at once while the API answers; in an outage, as its next probe or once it is over. */
  admit(): Promise<Ticket> {
    if (this.gaveUp) return Promise.reject(this.gaveUp);
    if (this.o.signal.aborted) return Promise.reject(new AbortedError());
    const d = this.down;
    if (!d) return Promise.resolve({ probe: false, settled: false });
    if (d.probeDue) {
      d.probeDue = false;
      d.probeOut = true;
      return Promise.resolve({ probe: true, settled: false });
    }
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  /** The request got an HTTP answer that is not a 5xx: the API works. */
  answered(ticket: Ticket): void {
    ticket.settled = true;
    this.failuresInRow = 0;
    const d = this.down;
    if (!d) return;
    const took = this.record(d);
    this.down = null;
    this.o.log(`API answers again after ${(took / 1000).toFixed(1)} s: resuming`);
    const waiting = this.waiters;
    this.waiters = [];
    for (const w of waiting) w.resolve({ probe: false, settled: false });
  }

  /**
   * The request got no answer (`kind` transport), or a 5xx. True when it counts as (part of) an
   * outage: the caller then sends it again once admitted, without counting it against its retry bound.
   */
  failed(ticket: Ticket, reason: string, kind: 'transport' | 'http'): boolean {
    ticket.settled = true;
    this.failuresInRow++;
    const d = this.down;
    if (d) {
      d.reason = reason;
      if (ticket.probe) {
        d.probeOut = false;
        this.scheduleProbe(d);
      }
      return true;
    }
    // A 5xx among answers to other requests is about this request (a slow account, a bug).
    if (kind === 'http' && this.failuresInRow < OUTAGE_AFTER_5XX) return false;
    const now = Date.now();
    const down: Down = { since: now, reason, attempt: 0, probeOut: false, probeDue: false, nextProbeAt: null, timer: null, giveUp: null };
    this.down = down;
    if (this.o.timeoutMs !== null) down.giveUp = setTimeout(() => this.giveUp(down), this.o.timeoutMs);
    this.scheduleProbe(down);
    this.o.log(`API unavailable since ${clock(now)} (${reason}): sending paused, probing with backoff${this.o.timeoutMs !== null ? ` for up to ${Math.round(this.o.timeoutMs / 1000)} s` : ''}`);
    return true;
  }

  /** After every attempt: a probe that ended without a verdict (aborted, refused token) lets the next one go. */
  settle(ticket: Ticket): void {
    if (ticket.settled) return;
    ticket.settled = true;
    const d = this.down;
    if (ticket.probe && d) {
      d.probeOut = false;
      this.scheduleProbe(d);
    }
  }

  private scheduleProbe(d: Down): void {
    if (d.timer) clearTimeout(d.timer);
    const random = this.o.random ?? Math.random;
    // Jitter: many clients waiting on one API do not come back in step.
    const delay = Math.round(Math.min(this.o.probeCapMs, this.o.probeBaseMs * 2 ** d.attempt) * (0.75 + 0.5 * random()));
    d.attempt++;
    d.nextProbeAt = Date.now() + delay;
    d.timer = setTimeout(() => {
      d.timer = null;
      if (this.down !== d) return;
      const next = this.waiters.shift();
      if (next) {
        d.probeOut = true;
        next.resolve({ probe: true, settled: false });
      } else {
        d.probeDue = true;
      }
    }, delay);
  }

  private record(d: Down): number {
    const took = Date.now() - d.since;
    this.clear(d);
    this.stats.count++;
    this.stats.totalMs += took;
    this.stats.longestMs = Math.max(this.stats.longestMs, took);
    return took;
  }

  private giveUp(d: Down): void {
    if (this.down !== d) return;
    this.record(d);
    this.gaveUp = new ApiUnavailableError(d.since, d.reason);
    this.o.log(`API still unavailable after ${Math.round((Date.now() - d.since) / 1000)} s (outage timeout): stopping; run the same command again to resume`);
    this.rejectAll(this.gaveUp);
    this.o.onGiveUp(this.gaveUp);
  }

  private clear(d: Down): void {
    if (d.timer) clearTimeout(d.timer);
    if (d.giveUp) clearTimeout(d.giveUp);
    d.timer = null;
    d.giveUp = null;
  }

  private rejectAll(err: Error): void {
    const waiting = this.waiters;
    this.waiters = [];
    for (const w of waiting) w.reject(err);
    if (this.down) this.clear(this.down);
  }
}
