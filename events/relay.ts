import pg from 'pg';
import { jetstream, JetStreamClient } from '@nats-io/jetstream';
import { headers as natsHeaders } from '@nats-io/nats-core';
import type { Knex } from 'knex';
import type { NatsConnection } from './nats';
import type { Logger } from '../lib/logger';
import type { Metrics } from '../lib/metrics';
import { HEADER_MSG_ID, HEADER_TYPE, HEADER_VERSION } from './envelope';

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
}

interface OutboxRow {
  seq: string;
  event_id: string;
  event_type: string;
  event_version: string;
  subject: string;
  ordering_key: string;
  envelope: unknown;
  created_at: Date;
}

// Session advisory lock: one relay publishes at a time, so the order of the outbox is the order
// of the stream. Other replicas stand by and take over when the leader's connection goes.
const LEADER_LOCK_KEY = 0x0da7a1;
const MAX_BACKOFF_MS = 30_000;

/**
 * Publishes outbox rows to JetStream, oldest first, and takes them off the pending queue once acknowledged.
 * Events of one ordering key (one import) go one at a time, each waiting for its ack, so their
 * order is kept even when a publish fails half-way; different keys are published concurrently.
 * A crash between ack and mark republishes the same Nats-Msg-Id, which JetStream drops within
 * its duplicate window.
 */
export class OutboxRelay {
  private js: JetStreamClient;
  private listener: pg.Client | null = null;
  private leader = false;
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private backoffMs = 0;
  private statusWatch: { stop?: () => void } | null = null;

  constructor(private readonly o: RelayOptions) {
    this.js = jetstream(o.nc, { timeout: o.publishTimeoutMs ?? 5000 });
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.watchNats();
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.statusWatch?.stop?.();
    this.statusWatch = null;
    this.wake?.();
    await this.loop;
    await this.closeListener();
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
    })().catch(() => undefined);
  }

  /** Publishes everything pending now (used by tests and by shutdown); returns how many were acked. */
  async drainOnce(): Promise<number> {
    let total = 0;
    for (;;) {
      const { published, fetched } = await this.publishBatch();
      total += published;
      if (fetched < this.o.batchSize || published === 0) return total;
    }
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        if (!(await this.ensureLeader())) {
          await this.sleep(this.o.pollIntervalMs * 4);
          continue;
        }
        const { published, fetched, failed } = await this.publishBatch();
        if (failed > 0 && published === 0) {
          this.backoffMs = Math.min(MAX_BACKOFF_MS, Math.max(250, this.backoffMs * 2));
          await this.sleep(this.backoffMs);
          continue;
        }
        this.backoffMs = 0;
        if (fetched === this.o.batchSize) continue;
        await this.sleep(this.o.pollIntervalMs);
      } catch (err) {
        this.o.log.warn({ err: String(err) }, 'outbox relay iteration failed; retrying');
        await this.closeListener();
        this.backoffMs = Math.min(MAX_BACKOFF_MS, Math.max(500, this.backoffMs * 2));
        await this.sleep(this.backoffMs);
      }
    }
  }

  private async ensureLeader(): Promise<boolean> {
    if (this.listener && this.leader) return true;
    if (!this.listener) {
      const c = new pg.Client({ connectionString: this.o.databaseUrl });
      c.on('error', () => {
        this.leader = false;
        this.listener = null;
      });
      c.on('notification', () => this.wake?.());
      await c.connect();
      await c.query('LISTEN outbox');
      this.listener = c;
    }
    const r = await this.listener.query('SELECT pg_try_advisory_lock($1) AS ok', [LEADER_LOCK_KEY]);
    this.leader = r.rows[0].ok === true;
    if (this.leader) this.o.log.info('outbox relay is the leader');
    return this.leader;
  }

  private async closeListener(): Promise<void> {
    const c = this.listener;
    this.listener = null;
    this.leader = false;
    if (c) await c.end().catch(() => undefined);
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

  private async publishBatch(): Promise<{ published: number; fetched: number; failed: number }> {
    const rows: OutboxRow[] = await this.o
      .db('outbox_pending as p')
      .join('outbox as o', 'o.seq', 'p.seq')
      .select('o.seq', 'o.event_id', 'o.event_type', 'o.event_version', 'o.subject', 'o.ordering_key', 'o.envelope', 'o.created_at')
      .orderBy('p.seq')
      .limit(this.o.batchSize);
    if (rows.length === 0) return { published: 0, fetched: 0, failed: 0 };

    const chains = new Map<string, OutboxRow[]>();
    for (const r of rows) {
      const chain = chains.get(r.ordering_key);
      if (chain) chain.push(r);
      else chains.set(r.ordering_key, [r]);
    }
    const acked: OutboxRow[] = [];
    const failures: { row: OutboxRow; error: string }[] = [];
    await Promise.all(
      [...chains.values()].map(async (chain) => {
        for (const row of chain) {
          try {
            await this.publish(row);
            acked.push(row);
          } catch (err) {
            // Stop this chain: a later event of the same import must not overtake this one.
            failures.push({ row, error: String(err) });
            return;
          }
        }
      }),
    );
    if (acked.length > 0) {
      // Publication is the queue row's deletion; the event row itself is never updated (no dead
      // tuple per event in the big table; migration 0010).
      await this.o
        .db('outbox_pending')
        .whereIn('seq', acked.map((r) => r.seq))
        .delete();
      this.o.metrics?.eventsPublished.inc(acked.length);
      const now = Date.now();
      for (const r of acked) this.o.metrics?.relayLag.observe(Math.max(0, now - new Date(r.created_at).getTime()) / 1000);
    }
    if (failures.length > 0) {
      this.o.metrics?.publishFailures.inc();
      this.o.log.warn({ failed: failures.length, first: failures[0]!.error }, 'events not published yet; they stay in the outbox');
      await this.o
        .db('outbox_pending')
        .whereIn('seq', failures.map((f) => f.row.seq))
        .update({ attempts: this.o.db.raw('attempts + 1'), last_error: failures[0]!.error.slice(0, 1000) })
        .catch(() => undefined);
    }
    return { published: acked.length, fetched: rows.length, failed: failures.length };
  }

  private async publish(row: OutboxRow): Promise<void> {
    const h = natsHeaders();
    h.set(HEADER_MSG_ID, row.event_id);
    h.set(HEADER_TYPE, row.event_type);
    h.set(HEADER_VERSION, row.event_version);
    const body = typeof row.envelope === 'string' ? row.envelope : JSON.stringify(row.envelope);
    await this.js.publish(row.subject, body, { msgID: row.event_id, headers: h });
  }
}
