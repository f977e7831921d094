import pg from 'pg';
import { ProbeSession } from '../lib/pgProbe';

export interface WatchdogOptions {
  databaseUrl: string;
  /** How long PostgreSQL may stay unreachable before `onUnreachable` is called once. */
  unreachableMs: number;
  /** What to do then (the worker: log and leave). */
  onUnreachable(silentMs: number, lastError: string | null): void;
  /** Between two probes; each probe gets as long to connect and answer. Default: a sixth of unreachableMs, at most 5 s. */
  probeIntervalMs?: number;
}

/**
 * Whether this process can still reach PostgreSQL, probed on a session of its own. A worker host
 * cut off from PostgreSQL but not from Temporal (a firewall rule, a broken route, a security group)
 * keeps polling Temporal and taking imports whose every step then hangs on a statement that
 * never returns: its pool's connections have no timeout of their own, and Temporal sees a worker
 * that is alive. The watchdog probes `SELECT 1` every interval, each probe bounded in time (connect
 * and answer); once no probe has succeeded for `unreachableMs`, it calls `onUnreachable`, once.
 * Leaving is the worker's answer (worker/main.ts): its imports' workflow tasks time out and go to
 * workers that can reach PostgreSQL, and its supervisor starts it again, which waits for
 * PostgreSQL at start. When PostgreSQL is down for every worker, each leaves and comes back when
 * it is up again, as after a restart.
 */
export class DatabaseWatchdog {
  private timer: NodeJS.Timeout | null = null;
  /** The probe's session (lib/pgProbe.ts, shared with the relay's lock session). */
  private readonly session: ProbeSession;
  private lastOkAt = performance.now();
  private lastError: string | null = null;
  private probing = false;
  private fired = false;
  private readonly intervalMs: number;

  constructor(private readonly o: WatchdogOptions) {
    this.intervalMs = o.probeIntervalMs ?? Math.max(100, Math.min(5000, Math.floor(o.unreachableMs / 6)));
    // The server ends this session ~25 s after its client falls silent, as every other of the
    // service's (lib/pgClient.ts): a worker cut off leaves and starts again with a new one. Each
    // probe is bounded by the interval, connecting and answering.
    this.session = new ProbeSession({ Client: pg.Client, databaseUrl: o.databaseUrl, timeoutMs: this.intervalMs, applicationName: 'data-import-watchdog' });
  }

  start(): void {
    if (this.timer || this.o.unreachableMs <= 0) return;
    this.lastOkAt = performance.now();
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.session.drop();
  }

  /**
   * Whether PostgreSQL answered recently: a probe succeeded within two probe intervals and a second
   * (a probe may take one interval to fail). False soon after the server falls silent, long before
   * `onUnreachable`. Always true when the watchdog is off.
   */
  seemsReachable(): boolean {
    return this.o.unreachableMs <= 0 || this.silentMs() < 2 * this.intervalMs + 1000;
  }

  /** Milliseconds since the last successful probe. */
  silentMs(): number {
    return performance.now() - this.lastOkAt;
  }

  private async tick(): Promise<void> {
    if (!this.probing) {
      this.probing = true;
      try {
        await this.session.probe();
        this.lastOkAt = performance.now();
        this.lastError = null;
      } catch (err) {
        this.lastError = err instanceof Error ? err.message : String(err);
        // A session that failed once is not trusted again: the next probe opens a new one.
        this.session.drop();
      } finally {
        this.probing = false;
      }
    }
    const silent = this.silentMs();
    if (!this.fired && this.timer && silent > this.o.unreachableMs) {
      this.fired = true;
      this.o.onUnreachable(Math.round(silent), this.lastError);
    }
  }
}
