import pg from 'pg';
import { jetstream, JetStreamClient } from '@nats-io/jetstream';
import { headers as natsHeaders, type MsgHdrs } from '@nats-io/nats-core';
import type { Knex } from 'knex';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span, type TextMapSetter } from '@opentelemetry/api';
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
  /** The W3C trace context of the step that wrote the event (migration 0015), when it was traced. */
  traceparent: string | null;
  tracestate: string | null;
}

const headerSetter: TextMapSetter<MsgHdrs> = { set: (h, key, value) => h.set(key, value) };
const tracer = trace.getTracer('data-import-relay');

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
