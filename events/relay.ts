import type { Knex } from 'knex';
import type { NatsConnection } from './nats';
import type { Logger } from '../lib/logger';
import type { Metrics } from '../lib/metrics';
import { DEFAULT_LEADER_LEASE_MS, LeaderLease } from './lease';
import { OutboxPublisher } from './publisher';

export interface RelayOptions {
  db: Knex;
  /** A dedicated connection holds the leader lock and LISTENs for new outbox rows. */
  databaseUrl: string;
  nc: NatsConnection;
  log: Logger;
  metrics?: Metrics;
  batchSize: number;
  pollIntervalMs: number;
  publishTimeoutMs?: number;
  /**
   * How long a leader may stay silent before it loses the leadership (OUTBOX_LEADER_LEASE_MS,
   * default 10 s): the leader proves it is alive with a round trip on its lock session every
   * quarter of it, stops publishing once its last proof is older than the lease less one interval,
   * and a standby ends a lock session that has been quiet for longer than the lease.
   */
  leaderLeaseMs?: number;
}

const MAX_BACKOFF_MS = 30_000;

/**
 * The outbox relay: one leader at a time (the lease, events/lease.ts) publishes the outbox to
 * JetStream (events/publisher.ts). This loop ties them: it contends for the leadership, publishes
 * batch after batch while it leads, backs off while publishing fails, and hands the leadership
 * over when it could publish nothing for longer than the lease.
 */
export class OutboxRelay {
  private readonly lease: LeaderLease;
  private readonly publisher: OutboxPublisher;
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private backoffMs = 0;
  private statusWatch: { stop?: () => void } | null = null;
  /** Since when (performance.now()) every publish of the leader has failed; null while they go out. */
  private failingSince: number | null = null;
  /** Until when (performance.now()) this relay does not contend for the lock, after it stepped down. */
  private standDownUntil = 0;

  constructor(private readonly o: RelayOptions) {
    this.lease = new LeaderLease({ databaseUrl: o.databaseUrl, log: o.log, leaseMs: o.leaderLeaseMs ?? DEFAULT_LEADER_LEASE_MS, wake: () => this.wake?.() });
    this.publisher = new OutboxPublisher({ db: o.db, nc: o.nc, log: o.log, metrics: o.metrics, batchSize: o.batchSize, publishTimeoutMs: o.publishTimeoutMs });
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.watchNats();
    this.lease.start();
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.statusWatch?.stop?.();
    this.statusWatch = null;
    this.lease.stop();
    this.wake?.();
    await this.loop;
    await this.lease.close();
  }

  /** Whether this relay holds the leadership and has proved it within its lease. */
  isLeader(): boolean {
    return this.lease.isLeader();
  }

  /**
   * A leader that could publish nothing for longer than the lease while events wait — its host cut
   * off from every NATS server, or its server partitioned from the stream's quorum, while
   * PostgreSQL still answers its heartbeats — hands the leadership over: it lets go of the lock,
   * sits out two leases so that a relay that can publish takes it, and moves its NATS connection
   * to another server of NATS_URL. When no relay can publish (NATS down for everyone) the
   * leadership goes round, which costs nothing; the outbox keeps every event meanwhile.
   */
  private stepDown(): void {
    const failingMs = this.failingSince === null ? 0 : Math.round(performance.now() - this.failingSince);
    this.failingSince = null;
    this.backoffMs = 0;
    this.standDownUntil = performance.now() + 2 * this.lease.leaseMs;
    this.lease.lose(`no event could be published for ${failingMs} ms (longer than the lease): another relay may reach NATS`);
    this.o.metrics?.relayStepDowns.inc();
    if (!this.o.nc.isClosed()) {
      this.o.nc.reconnect().catch((err: unknown) => this.o.log.warn({ err: String(err) }, 'outbox relay: NATS reconnect after the step-down failed'));
    }
  }

  /**
   * After an outage the backoff may have grown to MAX_BACKOFF_MS; without this, the backlog
   * would wait up to that long after NATS is back. A reconnect resets the backoff and wakes the loop.
   */
  private watchNats(): void {
    const it = this.o.nc.status();
    this.statusWatch = it as { stop?: () => void };
    (async () => {
      for await (const s of it) {
        if (!this.running) break;
        if (s.type === 'reconnect') {
          this.backoffMs = 0;
          this.wake?.();
        }
      }
    })().catch((err: unknown) => this.o.log.warn({ err: String(err) }, 'outbox relay: NATS status watch ended'));
  }

  /** Publishes everything pending now (used by tests and by shutdown); returns how many were acked. */
  async drainOnce(): Promise<number> {
    let total = 0;
    for (;;) {
      const { published, fetched, itemFailed, setAside } = await this.publisher.publishBatch();
      total += published;
      // An event refused for itself is retried (up to its bound) or set aside: go on past it.
      if (fetched === 0 || (published === 0 && itemFailed === 0 && setAside.length === 0)) return total;
    }
  }

  private async run(): Promise<void> {
    const leaseMs = this.lease.leaseMs;
    while (this.running) {
      try {
        if (performance.now() < this.standDownUntil || !(await this.lease.ensureLeader())) {
          await this.sleep(this.o.pollIntervalMs * 4);
          continue;
        }
        // As the leader of the run loop, it publishes only within its lease (drainOnce is not fenced).
        const { published, fetched, failed, itemFailed } = await this.publisher.publishBatch(() => this.lease.isLeader());
        if (failed > 0 && published === 0) {
          // Only NATS's failures may hand the leadership over: an event refused for itself is set
          // aside after its attempts (events/outbox.ts), whichever relay leads.
          if (failed > itemFailed) this.failingSince ??= performance.now();
          if (this.failingSince !== null && performance.now() - this.failingSince > leaseMs) {
            this.stepDown();
            continue;
          }
          this.backoffMs = Math.min(MAX_BACKOFF_MS, Math.max(250, this.backoffMs * 2));
          // Within the lease: the step-down must not wait behind a long backoff.
          await this.sleep(Math.min(this.backoffMs, leaseMs / 2));
          continue;
        }
        this.failingSince = null;
        this.backoffMs = 0;
        if (fetched === this.o.batchSize) continue;
        await this.sleep(this.o.pollIntervalMs);
      } catch (err) {
        this.o.log.warn({ err: String(err) }, 'outbox relay iteration failed; retrying');
        await this.lease.close();
        this.backoffMs = Math.min(MAX_BACKOFF_MS, Math.max(500, this.backoffMs * 2));
        await this.sleep(this.backoffMs);
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        resolve();
      }
      this.wake = () => {
        this.wake = null;
        done();
      };
    });
  }
}
