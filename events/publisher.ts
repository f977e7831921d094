import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import { headers as natsHeaders, type MsgHdrs } from '@nats-io/nats-core';
import type { Knex } from 'knex';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span, type TextMapSetter } from '@opentelemetry/api';
import type { NatsConnection } from './nats';
import type { Logger } from '../lib/logger';
import type { Metrics } from '../lib/metrics';
import { HEADER_MSG_ID, HEADER_TYPE, HEADER_VERSION } from './envelope';
import { markPublished, markPublishFailed, pendingEvents, type PendingEvent } from './outbox';

export interface PublisherOptions {
  db: Knex;
  nc: NatsConnection;
  log: Logger;
  metrics?: Metrics;
  batchSize: number;
  publishTimeoutMs?: number;
}

export interface BatchOutcome {
  published: number;
  fetched: number;
  failed: number;
}

const headerSetter: TextMapSetter<MsgHdrs> = { set: (h, key, value) => h.set(key, value) };
const tracer = trace.getTracer('data-import-relay');

/**
 * Publishes outbox rows to JetStream, oldest first, and takes them off the pending queue once acknowledged.
 * Events of one ordering key (one import) go one at a time, each waiting for its ack, so their
 * order is kept even when a publish fails half-way; different keys are published concurrently.
 * A crash between ack and mark republishes the same Nats-Msg-Id, which JetStream drops within
 * its duplicate window. Which relay may publish is the lease's business (events/lease.ts).
 *
 * An event written inside a trace (its row's `traceparent`) is published as a span of that trace,
 * `publish <subject>`, whose context the message carries in W3C `traceparent` / `tracestate`
 * headers (docs/tracing.md); with tracing off in this process the stored context is passed on as
 * it is, so a consumer still continues the import's trace.
 */
export class OutboxPublisher {
  private readonly js: JetStreamClient;

  constructor(private readonly o: PublisherOptions) {
    this.js = jetstream(o.nc, { timeout: o.publishTimeoutMs ?? 5000 });
  }

  /** One batch. `mayPublish`, asked before each event: false stops publishing (a leader that lost its lease). */
  async publishBatch(mayPublish: () => boolean = () => true): Promise<BatchOutcome> {
    const rows = await pendingEvents(this.o.db, this.o.batchSize);
    if (rows.length === 0) return { published: 0, fetched: 0, failed: 0 };

    const chains = new Map<string, PendingEvent[]>();
    for (const r of rows) {
      const chain = chains.get(r.ordering_key);
      if (chain) chain.push(r);
      else chains.set(r.ordering_key, [r]);
    }
    const acked: PendingEvent[] = [];
    const failures: { row: PendingEvent; error: string }[] = [];
    await Promise.all(
      [...chains.values()].map(async (chain) => {
        for (const row of chain) {
          // A leader that has lost its lease (a read that hung through a silent spell, a frozen
          // process) publishes nothing more: another relay may lead by now.
          if (!mayPublish()) return;
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
      await markPublished(
        this.o.db,
        acked.map((r) => r.seq),
      );
      this.o.metrics?.eventsPublished.inc(acked.length);
      const now = Date.now();
      for (const r of acked) this.o.metrics?.relayLag.observe(Math.max(0, now - new Date(r.created_at).getTime()) / 1000);
    }
    if (failures.length > 0) {
      this.o.metrics?.publishFailures.inc();
      this.o.log.warn({ failed: failures.length, first: failures[0]!.error }, 'events not published yet; they stay in the outbox');
      await markPublishFailed(
        this.o.db,
        failures.map((f) => f.row.seq),
        failures[0]!.error,
      ).catch(() => undefined);
    }
    return { published: acked.length, fetched: rows.length, failed: failures.length };
  }

  private async publish(row: PendingEvent): Promise<void> {
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
function publishAttributes(row: PendingEvent) {
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
