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

/** The oldest `limit` events not yet acknowledged by JetStream, oldest first (set-aside ones and those they hold included). */
export async function pendingEvents(db: Knex, limit: number): Promise<PendingEvent[]> {
  return db('outbox_pending as p')
    .join('outbox as o', 'o.seq', 'p.seq')
    .select('o.seq', 'o.event_id', 'o.event_type', 'o.event_version', 'o.subject', 'o.ordering_key', 'o.envelope', 'o.created_at', 'o.traceparent', 'o.tracestate')
    .orderBy('p.seq')
    .limit(limit);
}

/**
 * The relay's bound on attempts at one event that count against the event (docs/operations.md
 * "Set-aside queue items"): a publish refused for the event itself (larger than the server's
 * max_payload, a subject no stream takes, an envelope that cannot be sent) or an attempt that never
 * finished (the relay died with the event in hand). Attempts that failed because NATS could not be
 * reached do not count: an outage sets nothing aside.
 */
export const OUTBOX_MAX_ITEM_ATTEMPTS = 3;

/**
 * Sets aside every event whose last attempt never finished (`attempted_at` left behind: the relay
 * that took it died) once its attempts reached the bound; their seqs. Only the leader claims events,
 * so an attempt left behind when a leader starts a batch is a dead one's.
 */
export async function setAsideUnfinishedEvents(db: Knex, maxAttempts: number): Promise<string[]> {
  const rows = (await db.raw(
    `UPDATE outbox_pending SET set_aside_at = now(), attempted_at = NULL,
       last_error = left(coalesce(last_error || '; ', '') || 'attempt ' || item_attempts || ' never finished (the relay stopped: a crash or out of memory)', 1000)
     WHERE attempted_at IS NOT NULL AND set_aside_at IS NULL AND item_attempts >= ? RETURNING seq`,
    [maxAttempts],
  )).rows as { seq: string }[];
  return rows.map((r) => String(r.seq));
}

/**
 * Unfinished attempts an event may have before the relay takes it alone: one less than the bound
 * (at least one). One unfinished attempt is what a leader that was cut off, frozen or killed leaves
 * on its whole batch: taken alone, that batch would go out one event per round trip (hundreds of
 * events already in the stream, re-sent and deduplicated, before the first new one: events resumed
 * after 33 s instead of 9 s in the hosts harness's leader-cut), so with the bound of 3 it is claimed
 * as a batch again. Two in a row is a batch that killed the relay twice: its events are then taken
 * one at a time, so only the one that kills it reaches the bound and is set aside.
 */
export function suspectAfter(maxAttempts: number): number {
  return Math.max(1, maxAttempts - 1);
}

/**
 * Claims the relay's next batch, recording one attempt on each event (committed before any of them
 * is read back or published, so an event that kills the relay leaves its count behind). The batch is
 * the oldest `limit` pending events, less every event held behind a set-aside event of its ordering
 * key (they wait for it: per-account order is never broken), cut before the first suspect event (its
 * last suspectAfter(maxAttempts) attempts never finished); a suspect event, when it comes first, is
 * taken alone (an event that kills the relay costs its batch one more attempt, then only its own).
 * Returns the seqs claimed and how many events were candidates (a full batch means more may wait).
 */
export async function claimEvents(db: Knex, limit: number, maxAttempts: number = OUTBOX_MAX_ITEM_ATTEMPTS): Promise<{ seqs: string[]; candidates: number }> {
  const rows = (await db.raw(
    `WITH cand AS (
       SELECT p.seq, p.attempted_at IS NOT NULL AND p.item_attempts >= ? AS suspect FROM outbox_pending p JOIN outbox o ON o.seq = p.seq
       WHERE p.set_aside_at IS NULL
         AND NOT EXISTS (SELECT 1 FROM outbox_pending h JOIN outbox ho ON ho.seq = h.seq
                         WHERE h.set_aside_at IS NOT NULL AND h.seq < p.seq AND ho.ordering_key = o.ordering_key)
       ORDER BY p.seq LIMIT ?),
     bounds AS (SELECT min(seq) AS first, min(seq) FILTER (WHERE suspect) AS suspect, count(*) AS n FROM cand),
     pick AS (SELECT c.seq FROM cand c, bounds b
              WHERE CASE WHEN b.suspect = b.first THEN c.seq = b.first ELSE b.suspect IS NULL OR c.seq < b.suspect END)
     UPDATE outbox_pending p SET item_attempts = item_attempts + 1, attempted_at = now()
     FROM pick, bounds WHERE p.seq = pick.seq
     RETURNING p.seq, bounds.n`,
    [suspectAfter(maxAttempts), limit],
  )).rows as { seq: string; n: string }[];
  if (rows.length === 0) {
    // Nothing claimed: either nothing is pending, or everything pending is held.
    return { seqs: [], candidates: 0 };
  }
  return { seqs: rows.map((r) => String(r.seq)).sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1)), candidates: Number(rows[0]!.n) };
}

/** The claimed events, as the relay publishes them, oldest first. */
export async function claimedEvents(db: Knex, seqs: readonly string[]): Promise<PendingEvent[]> {
  if (seqs.length === 0) return [];
  return db('outbox as o')
    .select('o.seq', 'o.event_id', 'o.event_type', 'o.event_version', 'o.subject', 'o.ordering_key', 'o.envelope', 'o.created_at', 'o.traceparent', 'o.tracestate')
    .whereIn('o.seq', [...seqs])
    .orderBy('o.seq');
}

/**
 * Takes acknowledged events off the pending queue. Publication is the queue row's deletion; the
 * event row itself is never updated (no dead tuple per event in the big table; migration 0010).
 */
export async function markPublished(db: Knex, seqs: string[]): Promise<void> {
  await db('outbox_pending').whereIn('seq', seqs).delete();
}

/**
 * How a claimed event that was not acknowledged ended: `item` (refused for the event itself: the
 * attempt counts), `outage` (NATS could not be reached: a failed publish, its attempt given back) or
 * `untried` (its chain stopped before it, or the leadership was lost: its attempt given back).
 */
export type UnpublishedOutcome = { seq: string; kind: 'item' | 'outage' | 'untried'; error?: string };

/**
 * Records the outcomes of a batch's unpublished events: a failed publish counts in `attempts` with
 * its error (its first 1,000 characters); an event refused for itself at its last attempt is set
 * aside. Returns the seqs set aside.
 */
export async function recordUnpublished(db: Knex, outcomes: readonly UnpublishedOutcome[], maxAttempts: number): Promise<string[]> {
  if (outcomes.length === 0) return [];
  const rows = (await db.raw(
    `UPDATE outbox_pending p SET
       attempted_at = NULL,
       attempts = p.attempts + CASE WHEN f.kind = 'untried' THEN 0 ELSE 1 END,
       last_error = CASE WHEN f.kind = 'untried' THEN p.last_error ELSE left(f.error, 1000) END,
       item_attempts = CASE WHEN f.kind = 'item' THEN p.item_attempts ELSE greatest(p.item_attempts - 1, 0) END,
       set_aside_at = CASE WHEN f.kind = 'item' AND p.item_attempts >= ? THEN now() END
     FROM unnest(?::bigint[], ?::text[], ?::text[]) AS f(seq, kind, error)
     WHERE p.seq = f.seq AND p.set_aside_at IS NULL
     RETURNING p.seq, p.set_aside_at`,
    [maxAttempts, outcomes.map((o) => o.seq), outcomes.map((o) => o.kind), outcomes.map((o) => o.error ?? '')],
  )).rows as { seq: string; set_aside_at: Date | null }[];
  return rows.filter((r) => r.set_aside_at !== null).map((r) => String(r.seq));
}
