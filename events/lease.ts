import pg from 'pg';
import type { Logger } from '../lib/logger';
import { probe, ProbeSession } from '../lib/pgProbe';

// Session advisory lock: one relay publishes at a time, so the order of the outbox is the order
// of the stream. Other replicas stand by and take over when the leader's connection goes — or
// when it falls silent: a host that loses power or its link closes no socket, and PostgreSQL keeps
// such a session (and its lock) for tcp_keepalives_idle, two hours by default. So the lock is held
// as a lease (docs/events.md, "The relay's leader"): the leader's session answers a heartbeat every
// quarter lease, which moves its pg_stat_activity.state_change; a standby that finds the holder's
// session quiet for longer than the lease ends it (pg_terminate_backend: the same role may) and
// takes the lock. The silent leader fences itself: it publishes nothing once its last heartbeat
// is older than the lease less one heartbeat interval, before any standby may take over.
const LEADER_LOCK_KEY = 0x0da7a1;
export const DEFAULT_LEADER_LEASE_MS = 10_000;

/**
 * The session holding the leader lock, and how long it has been quiet. pg_try_advisory_lock(bigint)
 * keeps the key's high 32 bits in classid, the low ones in objid, with objsubid 1.
 */
const LOCK_HOLDER_SQL = `SELECT l.pid, extract(epoch FROM now() - a.state_change) * 1000 AS quiet_ms
  FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
  WHERE l.locktype = 'advisory' AND l.classid = 0 AND l.objid = $1 AND l.objsubid = 1 AND l.granted
    AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`;

export interface LeaderLeaseOptions {
  /** The lock session is a connection of its own, which also LISTENs for new outbox rows. */
  databaseUrl: string;
  log: Logger;
  /** How long a leader may stay silent before it loses the leadership (OUTBOX_LEADER_LEASE_MS). */
  leaseMs: number;
  /** Called when the relay should look again at once: a new outbox row, or the leadership changed hands. */
  wake(): void;
}

/**
 * The relay's leader election: the advisory lock held as a lease on a session of its own
 * (lib/pgProbe.ts). The leader proves it is alive with a round trip on its lock session every
 * quarter lease; it counts as the leader only while its last proof is younger than the lease less
 * one interval; a standby ends a lock session that has been quiet for longer than the lease.
 */
export class LeaderLease {
  readonly leaseMs: number;
  readonly heartbeatMs: number;
  private readonly session: ProbeSession;
  private leader = false;
  /** When the lock session last answered (performance.now()), while leader. */
  private lastProofAt = 0;
  private heartbeat: NodeJS.Timeout | null = null;
  private heartbeatInFlight = false;

  constructor(private readonly o: LeaderLeaseOptions) {
    this.leaseMs = o.leaseMs;
    this.heartbeatMs = Math.max(10, Math.floor(this.leaseMs / 4));
    // The server's keepalives of every session of the service (lib/pgClient.ts): a standby's
    // session whose host went silent is ended ~25 s later (a leader's by the next leader).
    this.session = new ProbeSession({
      Client: pg.Client,
      databaseUrl: o.databaseUrl,
      // Bounded waits on a silent server: connecting, and every statement of this session.
      timeoutMs: this.leaseMs,
      keepAliveInitialDelayMillis: this.heartbeatMs,
      onError: () => {
        this.leader = false;
      },
      onNotification: () => o.wake(),
    });
  }

  /** Starts the heartbeat. */
  start(): void {
    this.heartbeat = setInterval(() => this.beat(), this.heartbeatMs);
    this.heartbeat.unref();
  }

  /** Stops the heartbeat (the lock session stays until `close`). */
  stop(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }

  /** Whether this relay holds the leadership and has proved it within its lease. */
  isLeader(): boolean {
    return this.leader && this.session.client !== null && performance.now() - this.lastProofAt < this.leaseMs - this.heartbeatMs;
  }

  /** Whether this relay leads now: contends for the lock when it does not hold it (opening its session when none is open). */
  async ensureLeader(): Promise<boolean> {
    if (this.session.client && this.leader) {
      if (this.isLeader()) return true;
      this.lose('no answer to the heartbeat within the lease');
      return false;
    }
    const c = await this.session.open((s) => s.query('LISTEN outbox'));
    const r = await c.query('SELECT pg_try_advisory_lock($1) AS ok', [LEADER_LOCK_KEY]);
    if (this.session.client !== c) return false;
    this.leader = r.rows[0].ok === true;
    if (this.leader) {
      this.lastProofAt = performance.now();
      this.o.log.info({ leaseMs: this.leaseMs }, 'outbox relay is the leader');
    } else {
      await this.endSilentLeader(c);
    }
    return this.leader;
  }

  /** Gives up the leadership at once: the lock session is abandoned, not closed politely (a silent peer would never answer). */
  lose(why: string): void {
    if (!this.session.client) return;
    this.o.log.warn({ why, leaseMs: this.leaseMs }, 'outbox relay lost the leadership; it publishes nothing until it holds the lock again');
    this.leader = false;
    this.heartbeatInFlight = false;
    this.session.drop();
    this.o.wake();
  }

  /** Ends the lock session (and so the leadership), waiting at most a heartbeat interval for the server. */
  async close(): Promise<void> {
    this.leader = false;
    // A polite end waits for the server's answer, which a silent server never sends.
    await this.session.close(this.heartbeatMs);
  }

  /**
   * The leader's heartbeat: one round trip on the lock session. An answer renews the lease; no
   * answer within the lease (a silent PostgreSQL or network) drops the session, so the next
   * iteration contends again on a new one.
   */
  private beat(): void {
    const c = this.session.client;
    if (!this.leader || !c || this.heartbeatInFlight) {
      if (this.leader && c && !this.isLeader()) this.lose('no answer to the heartbeat within the lease');
      return;
    }
    this.heartbeatInFlight = true;
    const timeout = setTimeout(() => {
      if (this.session.client === c) this.lose('no answer to the heartbeat within the lease');
    }, this.leaseMs - this.heartbeatMs);
    probe(c)
      .then(() => {
        if (this.session.client === c && this.leader) this.lastProofAt = performance.now();
      })
      .catch(() => {
        if (this.session.client === c) this.lose('the lock session failed');
      })
      .finally(() => {
        clearTimeout(timeout);
        this.heartbeatInFlight = false;
      });
  }

  /**
   * A standby's check of the leader: a lock session quiet for longer than the lease belongs to a
   * leader that stopped proving itself (its host is silent, frozen or gone), so it is ended, which
   * frees the lock for the next try. The leader fenced itself a heartbeat before that.
   */
  private async endSilentLeader(c: pg.Client): Promise<void> {
    const holder = await c.query<{ pid: number; quiet_ms: string | number | null }>(LOCK_HOLDER_SQL, [LEADER_LOCK_KEY]);
    const row = holder.rows[0];
    if (!row || row.quiet_ms === null || Number(row.quiet_ms) <= this.leaseMs) return;
    const ended = await c.query<{ ok: boolean }>('SELECT pg_terminate_backend($1) AS ok', [row.pid]);
    this.o.log.warn(
      { pid: row.pid, quietMs: Math.round(Number(row.quiet_ms)), leaseMs: this.leaseMs, ended: ended.rows[0]?.ok === true },
      'outbox relay: the leader has been silent for longer than its lease; ended its session to take over',
    );
    this.o.wake();
  }
}
