import type { Knex } from 'knex';
import { uuidFromKey } from '../lib/ids';
import { type CatalogueEvent, validatePayload } from './catalogue';
import { EVENT_SOURCE, EventEnvelope } from './envelope';
import { subjectFor } from './subjects';
import { activeTraceContext } from '../lib/traceContext';

/**
 * An event to write: a catalogue event (type, version and its payload type, checked by the
 * compiler; the payload is checked against its schema again when written) and where it belongs.
 */
export type NewEvent = CatalogueEvent & EventPlacement;

export interface EventPlacement {
  /**
   * Business key of this occurrence, unique across all events (e.g.
   * `account-import:DEMO:X1:run-1:complete`). The event id is derived from it, so writing the
   * same occurrence twice (a retried activity) yields the same id.
   */
  key: string;
  /** Events with the same ordering key are published in the order they were written. */
  orderingKey: string;
  occurredAt: Date;
}

/** A payload that does not match its catalogue schema: a bug, never published. */
export class EventSchemaError extends Error {
  constructor(
    readonly eventType: string,
    readonly eventVersion: string,
    readonly errors: string[],
  ) {
    super(`event ${eventType}-${eventVersion} does not match its catalogue schema: ${errors.join('; ')}`);
    this.name = 'EventSchemaError';
  }
}

export function buildEnvelope(e: NewEvent): EventEnvelope {
  return {
    id: uuidFromKey(e.key),
    type: e.type,
    version: e.version,
    occurred_at: e.occurredAt.toISOString(),
    source: EVENT_SOURCE,
    data: e.data,
  };
}

/**
 * Writes events to the outbox inside the caller's transaction (the same one that makes the state
 * change they report). Each payload is validated against its catalogue schema first; a mismatch
 * throws EventSchemaError and the caller's transaction rolls back. An event id written before is
 * ignored (idempotent retries). The queue's trigger (migration 0014) NOTIFYs the relay when the
 * transaction commits. `along`: the state change itself (an UPDATE or INSERT not yet run), made
 * by the same statement as a data-modifying WITH (one round trip for the change and its events).
 * With tracing on, each row keeps the W3C trace context of the active span (the step's), which the
 * relay continues when it publishes (migration 0015, docs/tracing.md); off, the statement is unchanged.
 */
export async function enqueueEvents(trx: Knex, subjectPrefix: string, events: NewEvent[], opts: { along?: Knex.QueryBuilder } = {}): Promise<string[]> {
  if (events.length === 0) {
    if (opts.along) await opts.along;
    return [];
  }
  const { traceparent, tracestate } = activeTraceContext();
  const traced = traceparent ? { traceparent, tracestate: tracestate ?? null } : {};
  const rows = events.map((e) => {
    const check = validatePayload(e.type, e.version, e.data);
    if (!check.ok) throw new EventSchemaError(e.type, e.version, check.errors);
    const envelope = buildEnvelope(e);
    return {
      event_id: envelope.id,
      event_type: e.type,
      event_version: e.version,
      subject: subjectFor(subjectPrefix, e.type, e.version),
      ordering_key: e.orderingKey,
      envelope: JSON.stringify(envelope),
      created_at: e.occurredAt,
      ...traced,
    };
  });
  // One statement for the lot, in the given order (seq follows insertion order). Each new row also
  // enters the queue of unpublished events; a row written before (a retried activity) enters
  // neither. The relay records publication by deleting the queue row (migration 0010).
  const q = opts.along ? trx.with('change', opts.along) : trx.queryBuilder();
  await q
    .with('ins', trx('outbox').insert(rows).onConflict('event_id').ignore().returning('seq'))
    .insert(trx.select('seq').from('ins').orderBy('seq'))
    .into('outbox_pending');
  return rows.map((r) => r.event_id);
}

/**
 * Events written and not yet acknowledged by JetStream, and the age of the oldest (the relay's lag).
 * Reads the queue table, which holds only the backlog, so it stays cheap however big the outbox is.
 */
export async function outboxBacklog(db: Knex): Promise<{ count: number; oldestAgeSeconds: number }> {
  const r = await db('outbox_pending as p')
    .join('outbox as o', 'o.seq', 'p.seq')
    .select(db.raw('count(*)::int AS count'), db.raw('coalesce(extract(epoch FROM now() - min(o.created_at)), 0)::float AS age'))
    .first();
  return { count: Number(r?.count ?? 0), oldestAgeSeconds: Number(r?.age ?? 0) };
}

/** An event waiting in the outbox, as the relay publishes it. */
export interface PendingEvent {
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

/** The oldest `limit` events not yet acknowledged by JetStream, oldest first. */
export async function pendingEvents(db: Knex, limit: number): Promise<PendingEvent[]> {
  return db('outbox_pending as p')
    .join('outbox as o', 'o.seq', 'p.seq')
    .select('o.seq', 'o.event_id', 'o.event_type', 'o.event_version', 'o.subject', 'o.ordering_key', 'o.envelope', 'o.created_at', 'o.traceparent', 'o.tracestate')
    .orderBy('p.seq')
    .limit(limit);
}

/**
 * Takes acknowledged events off the pending queue. Publication is the queue row's deletion; the
 * event row itself is never updated (no dead tuple per event in the big table; migration 0010).
 */
export async function markPublished(db: Knex, seqs: string[]): Promise<void> {
  await db('outbox_pending').whereIn('seq', seqs).delete();
}

/** Counts a failed attempt on events still pending, with the error (its first 1,000 characters). */
export async function markPublishFailed(db: Knex, seqs: string[], error: string): Promise<void> {
  await db('outbox_pending')
    .whereIn('seq', seqs)
    .update({ attempts: db.raw('attempts + 1'), last_error: error.slice(0, 1000) });
}
