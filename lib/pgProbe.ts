import type pg from 'pg';
import { destroyPgClient, SESSION_PEER_OPTIONS } from './pgClient';

export interface ProbeSessionOptions {
  /** The driver's client class (pg.Client), handed in by the storage layer that owns the driver (lib/ imports it for types only). */
  Client: typeof pg.Client;
  databaseUrl: string;
  /** Bound on connecting and on every statement of the session (a silent server never answers). */
  timeoutMs: number;
  /** When the client's own TCP keepalives start (default: the driver's). */
  keepAliveInitialDelayMillis?: number;
  applicationName?: string;
  /** Called once the session failed on its own (its socket erred) and was given up. */
  onError?(): void;
  /** Called on a NOTIFY of a channel the session LISTENs to. */
  onNotification?(): void;
}

/**
 * A PostgreSQL session of its own, outside the pools, that proves the server still answers: the
 * relay's lock session (events/lease.ts) and the worker's watchdog (db/watchdog.ts). Every wait on
 * it is bounded (connecting and each statement), the server ends it when its client falls silent
 * (SESSION_PEER_OPTIONS, lib/pgClient.ts), and it is given up at once, never politely, when it
 * fails: a polite end waits for a server that may never answer. A session that failed once is not
 * trusted again: the next `open` starts a new one.
 */
export class ProbeSession {
  private current: pg.Client | null = null;

  constructor(private readonly o: ProbeSessionOptions) {}

  /** The open (or opening) session, if any: callers compare it to tell a session they knew from a newer one. */
  get client(): pg.Client | null {
    return this.current;
  }

  /** Opens the session unless one is open, and runs `init` on a new one (e.g. LISTEN); a session that fails to open is given up. */
  async open(init?: (c: pg.Client) => Promise<unknown>): Promise<pg.Client> {
    if (this.current) return this.current;
    const c = new this.o.Client({
      connectionString: this.o.databaseUrl,
      options: SESSION_PEER_OPTIONS,
      connectionTimeoutMillis: this.o.timeoutMs,
      query_timeout: this.o.timeoutMs,
      keepAlive: true,
      ...(this.o.keepAliveInitialDelayMillis !== undefined ? { keepAliveInitialDelayMillis: this.o.keepAliveInitialDelayMillis } : {}),
      ...(this.o.applicationName !== undefined ? { application_name: this.o.applicationName } : {}),
    });
    c.on('error', () => {
      if (this.current !== c) return;
      this.drop();
      this.o.onError?.();
    });
    if (this.o.onNotification) c.on('notification', this.o.onNotification);
    this.current = c;
    try {
      await c.connect();
      await init?.(c);
    } catch (err) {
      if (this.current === c) this.drop();
      else destroyPgClient(c);
      throw err;
    }
    return c;
  }

  /** The probe: one round trip (`SELECT 1`) on the session, opened first when none is. */
  async probe(): Promise<void> {
    await probe(await this.open());
  }

  /** Gives the session up at once. */
  drop(): void {
    const c = this.current;
    this.current = null;
    if (c) destroyPgClient(c);
  }

  /** Ends the session politely, waiting at most `graceMs` for the server's answer, then drops it. */
  async close(graceMs: number): Promise<void> {
    const c = this.current;
    this.current = null;
    if (!c) return;
    const ended = c.end().catch(() => undefined);
    const timer = new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref());
    await Promise.race([ended, timer]);
    destroyPgClient(c);
  }
}

/** One round trip on `c`: resolves when the server answered (bounded by the session's statement timeout). */
export async function probe(c: pg.Client): Promise<void> {
  await c.query('SELECT 1');
}
