import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import { headers as natsHeaders, type MsgHdrs } from '@nats-io/nats-core';
import type { Knex } from 'knex';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span, type TextMapSetter } from '@opentelemetry/api';
import type { NatsConnection } from './nats';
import type { Logger } from '../lib/logger';
import type { Metrics } from '../lib/metrics';
import { HEADER_MSG_ID, HEADER_TYPE, HEADER_VERSION } from './envelope';
import { claimedEvents, claimEvents, markPublished, OUTBOX_MAX_ITEM_ATTEMPTS, recordUnpublished, setAsideUnfinishedEvents, type PendingEvent, type UnpublishedOutcome } from './outbox';

export interface PublisherOptions {
  db: Knex;
  nc: NatsConnection;
  log: Logger;
  metrics?: Metrics;
  batchSize: number;
  publishTimeoutMs?: number;
  /** Attempts at one event that count against it before it is set aside (OUTBOX_MAX_ITEM_ATTEMPTS). */
  maxItemAttempts?: number;
}

export interface BatchOutcome {
  published: number;
  /** Events the batch considered (a full batch: more may wait). */
  fetched: number;
  /** Publishes that failed, whatever the cause. */
  failed: number;
  /** Of those, the ones refused for the event itself (counted against it; the rest were NATS's). */
  itemFailed: number;
  /** Events set aside by this batch (their last attempt failed, or never finished). */
  setAside: string[];
}

/** Errors of the connection or the server, not of one event: the attempt is given back. */
const OUTAGE_ERRORS = new Set(['TimeoutError', 'NoResponders', 'NoRespondersError', 'ClosedConnectionError', 'DrainingConnectionError', 'ConnectionError', 'ProtocolError', 'AuthorizationError', 'PermissionViolationError', 'UserAuthenticationExpiredError']);

/**
 * Whether a failed publish says NATS could not take any event (an outage, a timeout, no stream
 * leader) rather than this one event (its size over max_payload, a subject no stream captures, a
 * JetStream error about the message): only the latter counts against the event.
 */
export function isOutage(err: unknown): boolean {
  for (let e = err as { name?: string; cause?: unknown; code?: unknown } | undefined, depth = 0; e && depth < 4; e = e.cause as typeof e, depth++) {
    if (e.name && OUTAGE_ERRORS.has(e.name)) return true;
    // JetStream API errors 503 (no quorum, stream offline) are the server's, not the event's.
    if (e.name === 'JetStreamApiError' && (e as { status?: number }).status === 503) return true;
  }
  return false;
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
    const maxAttempts = this.o.maxItemAttempts ?? OUTBOX_MAX_ITEM_ATTEMPTS;
    // An event whose attempts all died with the relay (a crash, out of memory) is set aside first.
    const setAside = await setAsideUnfinishedEvents(this.o.db, maxAttempts);
    // Attempts recorded before the events are read back: one that kills the relay still counts.
    const claim = await claimEvents(this.o.db, this.o.batchSize, maxAttempts);
    const rows = await claimedEvents(this.o.db, claim.seqs);
    if (rows.length === 0) {
      this.countSetAside(setAside);
      return { published: 0, fetched: claim.candidates, failed: 0, itemFailed: 0, setAside };
    }

    const chains = new Map<string, PendingEvent[]>();
    for (const r of rows) {
      const chain = chains.get(r.ordering_key);
      if (chain) chain.push(r);
      else chains.set(r.ordering_key, [r]);
    }
    const acked: PendingEvent[] = [];
    const unpublished: UnpublishedOutcome[] = [];
    await Promise.all(
      [...chains.values()].map(async (chain) => {
        for (let i = 0; i < chain.length; i++) {
          const row = chain[i]!;
          // A leader that has lost its lease (a read that hung through a silent spell, a frozen
          // process) publishes nothing more: another relay may lead by now.
          if (!mayPublish()) {
            for (const rest of chain.slice(i)) unpublished.push({ seq: rest.seq, kind: 'untried' });
            return;
          }
          try {
            await this.publish(row);
            acked.push(row);
          } catch (err) {
            // Stop this chain: a later event of the same import must not overtake this one.
            unpublished.push({ seq: row.seq, kind: isOutage(err) ? 'outage' : 'item', error: String(err) });
            for (const rest of chain.slice(i + 1)) unpublished.push({ seq: rest.seq, kind: 'untried' });
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
    const failures = unpublished.filter((u) => u.kind !== 'untried');
    const itemFailed = failures.filter((u) => u.kind === 'item').length;
    if (failures.length > 0) {
      this.o.metrics?.publishFailures.inc();
      if (itemFailed > 0) this.o.metrics?.queueItemFailures.inc({ queue: 'outbox' }, itemFailed);
      this.o.log.warn({ failed: failures.length, refusedForTheEvent: itemFailed, first: failures[0]!.error }, 'events not published yet; they stay in the outbox');
    }
    if (unpublished.length > 0) {
      // A failure to record is retried by the next batch: the attempts left behind count as unfinished.
      setAside.push(...(await recordUnpublished(this.o.db, unpublished, maxAttempts).catch(() => [] as string[])));
    }
    this.countSetAside(setAside);
    return { published: acked.length, fetched: claim.candidates, failed: failures.length, itemFailed, setAside };
  }

  private countSetAside(seqs: string[]): void {
    if (seqs.length === 0) return;
    this.o.metrics?.queueItemsSetAside.inc({ queue: 'outbox' }, seqs.length);
    this.o.log.error({ seqs }, 'outbox relay set events aside after their last attempt; later events of their imports wait behind them (data-import set-aside list)');
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
