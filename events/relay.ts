import pg from 'pg';
import { jetstream, JetStreamClient } from '@nats-io/jetstream';
import { headers as natsHeaders, type MsgHdrs } from '@nats-io/nats-core';
import type { Knex } from 'knex';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span, type TextMapSetter } from '@opentelemetry/api';
import type { NatsConnection } from './nats';
import type { Logger } from '../lib/logger';
import type { Metrics } from '../lib/metrics';
import { HEADER_MSG_ID, HEADER_TYPE, HEADER_VERSION } from './envelope';
import { destroyPgClient, SESSION_PEER_OPTIONS } from '../lib/pgClient';

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

interface OutboxRow {
  seq: string;
  event_id: string;
  event_type: string;
  event_version: string;
  subject: string;
  ordering_key: string;
  envelope: unknown;
  created_at: Date;
  /** The W3C trace context of the step that wrote the event (migration 0015), when it was traced. */
  traceparent: string | null;
  tracestate: string | null;
}

const headerSetter: TextMapSetter<MsgHdrs> = { set: (h, key, value) => h.set(key, value) };
const tracer = trace.getTracer('data-import-relay');

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
const MAX_BACKOFF_MS = 30_000;
const DEFAULT_LEADER_LEASE_MS = 10_000;

/**
 * The session holding the leader lock, and how long it has been quiet. pg_try_advisory_lock(bigint)
 * keeps the key's high 32 bits in classid, the low ones in objid, with objsubid 1.
 */
const LOCK_HOLDER_SQL = `SELECT l.pid, extract(epoch FROM now() - a.state_change) * 1000 AS quiet_ms
  FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
  WHERE l.locktype = 'advisory' AND l.classid = 0 AND l.objid = $1 AND l.objsubid = 1 AND l.granted
    AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`;

/**
 * Publishes outbox rows to JetStream, oldest first, and takes them off the pending queue once acknowledged.
 * Events of one ordering key (one import) go one at a time, each waiting for its ack, so their
 * order is kept even when a publish fails half-way; different keys are published concurrently.
 * A crash between ack and mark republishes the same Nats-Msg-Id, which JetStream drops within
 * its duplicate window.
 *
 * An event written inside a trace (its row's `traceparent`) is published as a span of that trace,
 * `publish <subject>`, whose context the message carries in W3C `traceparent` / `tracestate`
 * headers (docs/tracing.md); with tracing off in this process the stored context is passed on as
 * it is, so a consumer still continues the import's trace.
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
  private readonly leaseMs: number;
  private readonly heartbeatMs: number;
  /** When the lock session last answered (performance.now()), while leader. */
  private lastProofAt = 0;
  private heartbeat: NodeJS.Timeout | null = null;
  private heartbeatInFlight = false;
  /** Since when (performance.now()) every publish of the leader has failed; null while they go out. */
  private failingSince: number | null = null;
  /** Until when (performance.now()) this relay does not contend for the lock, after it stepped down. */
  private standDownUntil = 0;

  constructor(private readonly o: RelayOptions) {
    this.js = jetstream(o.nc, { timeout: o.publishTimeoutMs ?? 5000 });
    this.leaseMs = o.leaderLeaseMs ?? DEFAULT_LEADER_LEASE_MS;
    this.heartbeatMs = Math.max(10, Math.floor(this.leaseMs / 4));
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.watchNats();
    this.heartbeat = setInterval(() => this.beat(), this.heartbeatMs);
    this.heartbeat.unref();
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.statusWatch?.stop?.();
    this.statusWatch = null;
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    this.wake?.();
    await this.loop;
    await this.closeListener();
  }

  /** Whether this relay holds the leadership and has proved it within its lease. */
  isLeader(): boolean {
    return this.leader && this.listener !== null && performance.now() - this.lastProofAt < this.leaseMs - this.heartbeatMs;
  }

  /**
   * The leader's heartbeat: one round trip on the lock session. An answer renews the lease; no
   * answer within the lease (a silent PostgreSQL or network) drops the session, so the next
   * iteration contends again on a new one.
   */
  private beat(): void {
    const c = this.listener;
    if (!this.leader || !c || this.heartbeatInFlight) {
      if (this.leader && c && !this.isLeader()) this.lose('no answer to the heartbeat within the lease');
      return;
    }
    this.heartbeatInFlight = true;
    const timeout = setTimeout(() => {
      if (this.listener === c) this.lose('no answer to the heartbeat within the lease');
    }, this.leaseMs - this.heartbeatMs);
    c.query('SELECT 1')
      .then(() => {
        if (this.listener === c && this.leader) this.lastProofAt = performance.now();
      })
      .catch(() => {
        if (this.listener === c) this.lose('the lock session failed');
      })
      .finally(() => {
        clearTimeout(timeout);
        this.heartbeatInFlight = false;
      });
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
    this.standDownUntil = performance.now() + 2 * this.leaseMs;
    this.lose(`no event could be published for ${failingMs} ms (longer than the lease): another relay may reach NATS`);
    this.o.metrics?.relayStepDowns.inc();
    if (!this.o.nc.isClosed()) {
      this.o.nc.reconnect().catch((err: unknown) => this.o.log.warn({ err: String(err) }, 'outbox relay: NATS reconnect after the step-down failed'));
    }
  }

  /** Gives up the leadership at once: the lock session is abandoned, not closed politely (a silent peer would never answer). */
  private lose(why: string): void {
    const c = this.listener;
    if (!c) return;
    this.o.log.warn({ why, leaseMs: this.leaseMs }, 'outbox relay lost the leadership; it publishes nothing until it holds the lock again');
    this.listener = null;
    this.leader = false;
    this.heartbeatInFlight = false;
    destroyPgClient(c);
    this.wake?.();
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
      const { published, fetched } = await this.publishBatch();
      total += published;
      if (fetched < this.o.batchSize || published === 0) return total;
    }
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        if (performance.now() < this.standDownUntil || !(await this.ensureLeader())) {
          await this.sleep(this.o.pollIntervalMs * 4);
          continue;
        }
        const { published, fetched, failed } = await this.publishBatch(true);
        if (failed > 0 && published === 0) {
          this.failingSince ??= performance.now();
          if (performance.now() - this.failingSince > this.leaseMs) {
            this.stepDown();
            continue;
          }
          this.backoffMs = Math.min(MAX_BACKOFF_MS, Math.max(250, this.backoffMs * 2));
          // Within the lease: the step-down must not wait behind a long backoff.
          await this.sleep(Math.min(this.backoffMs, this.leaseMs / 2));
          continue;
        }
        this.failingSince = null;
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
    if (this.listener && this.leader) {
      if (this.isLeader()) return true;
      this.lose('no answer to the heartbeat within the lease');
      return false;
    }
    if (!this.listener) {
      const c = new pg.Client({
        connectionString: this.o.databaseUrl,
        // The server's keepalives of every session of the service (lib/pgClient.ts): a standby's
        // session whose host went silent is ended ~25 s later (a leader's by the next leader).
        options: SESSION_PEER_OPTIONS,
        // Bounded waits on a silent server: connecting, and every statement of this session.
        connectionTimeoutMillis: this.leaseMs,
        query_timeout: this.leaseMs,
        keepAlive: true,
        keepAliveInitialDelayMillis: this.heartbeatMs,
      });
      c.on('error', () => {
        if (this.listener === c) {
          this.leader = false;
          this.listener = null;
        }
      });
      c.on('notification', () => this.wake?.());
      try {
        await c.connect();
        await c.query('LISTEN outbox');
      } catch (err) {
        destroyPgClient(c);
        throw err;
      }
      this.listener = c;
    }
    const c = this.listener;
    const r = await c.query('SELECT pg_try_advisory_lock($1) AS ok', [LEADER_LOCK_KEY]);
    if (this.listener !== c) return false;
    this.leader = r.rows[0].ok === true;
    if (this.leader) {
      this.lastProofAt = performance.now();
      this.o.log.info({ leaseMs: this.leaseMs }, 'outbox relay is the leader');
    } else {
      await this.endSilentLeader(c);
    }
    return this.leader;
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
    this.wake?.();
  }

  private async closeListener(): Promise<void> {
    const c = this.listener;
    this.listener = null;
    this.leader = false;
    if (c) {
      // A polite end waits for the server's answer, which a silent server never sends.
      const ended = c.end().catch(() => undefined);
      const timer = new Promise<void>((resolve) => setTimeout(resolve, this.heartbeatMs).unref());
      await Promise.race([ended, timer]);
      destroyPgClient(c);
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

  /** `fenced`: as the leader of the run loop, which publishes only within its lease (drainOnce is not). */
  private async publishBatch(fenced = false): Promise<{ published: number; fetched: number; failed: number }> {
    const rows: OutboxRow[] = await this.o
      .db('outbox_pending as p')
      .join('outbox as o', 'o.seq', 'p.seq')
      .select('o.seq', 'o.event_id', 'o.event_type', 'o.event_version', 'o.subject', 'o.ordering_key', 'o.envelope', 'o.created_at', 'o.traceparent', 'o.tracestate')
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
          // A leader that has lost its lease (a read that hung through a silent spell, a frozen
          // process) publishes nothing more: another relay may lead by now.
          if (fenced && !this.isLeader()) return;
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
    const send = () => this.js.publish(row.subject, body, { msgID: row.event_id, headers: h });
    if (!row.traceparent) {
      await send();
      return;
    }
    const parent = propagation.extract(ROOT_CONTEXT, { traceparent: row.traceparent, ...(row.tracestate ? { tracestate: row.tracestate } : {}) });
    const span = tracer.startSpan(`publish ${row.subject}`, { kind: SpanKind.PRODUCER, attributes: publishAttributes(row) }, parent);
    if (!span.isRecording() && !trace.getSpan(parent)) {
      // Tracing is off in this process (no propagator to read the row's context): pass it on as it is.
      h.set('traceparent', row.traceparent);
      if (row.tracestate) h.set('tracestate', row.tracestate);
    } else {
      propagation.inject(trace.setSpan(parent, span), h, headerSetter);
    }
    await endWith(span, context.with(trace.setSpan(parent, span), send));
  }
}

/** Messaging attributes of a publish span (OpenTelemetry semantic conventions). */
function publishAttributes(row: OutboxRow) {
  return {
    'messaging.system': 'nats',
    'messaging.operation.type': 'send',
    'messaging.operation.name': 'publish',
    'messaging.destination.name': row.subject,
    'messaging.message.id': row.event_id,
    'data_import.event.type': row.event_type,
    'data_import.event.version': row.event_version,
    'data_import.ordering_key': row.ordering_key,
  };
}

/** Ends the span when `p` settles, marked as an error if it failed. */
async function endWith<T>(span: Span, p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (err) {
    span.recordException(err instanceof Error ? err : String(err));
    span.setStatus({ code: SpanStatusCode.ERROR, message: String(err) });
    throw err;
  } finally {
    span.end();
  }
}
