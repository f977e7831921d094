import type { Knex } from 'knex';

/**
 * The events the relay could not publish, set aside on the pending queue (`outbox_pending.set_aside_at`,
 * migration 0024), as `data-import set-aside` and the operations page read and retry them
 * (maintenance/setAside.ts gathers every queue's). A set-aside event holds the later events of its
 * ordering key (`held`): they are published once it is retried and goes out, never before it.
 */
export interface SetAsideEvent {
  seq: number;
  /** `<event type>-<version>`. */
  type: string;
  supplier: string | null;
  externalAccountNumber: string | null;
  attempts: number;
  reason: string | null;
  setAsideAt: Date;
  /** Later events of the same account waiting behind this one. */
  held: number;
}

/** `account-import:<supplier>:<external account number>` (events/orderingKey.ts), read back. */
function fromOrderingKey(key: string): { supplier: string | null; external: string | null } {
  const m = /^account-import:([^:]*):(.*)$/.exec(key);
  return m ? { supplier: m[1]!, external: m[2]! } : { supplier: null, external: null };
}

/** The set-aside events, oldest first, at most `limit`. */
export async function listSetAsideEvents(db: Knex, limit: number): Promise<SetAsideEvent[]> {
  const rows = (await db.raw(
    `SELECT p.seq, o.event_type, o.event_version, o.ordering_key, p.item_attempts, p.last_error, p.set_aside_at,
       (SELECT count(*) FROM outbox_pending l JOIN outbox lo ON lo.seq = l.seq WHERE l.seq > p.seq AND lo.ordering_key = o.ordering_key)::int AS held
     FROM outbox_pending p JOIN outbox o ON o.seq = p.seq
     WHERE p.set_aside_at IS NOT NULL ORDER BY p.set_aside_at, p.seq LIMIT ?`,
    [limit],
  )).rows as { seq: string; event_type: string; event_version: string; ordering_key: string; item_attempts: number; last_error: string | null; set_aside_at: Date; held: number }[];
  return rows.map((r) => {
    const k = fromOrderingKey(r.ordering_key);
    return { seq: Number(r.seq), type: `${r.event_type}-${r.event_version}`, supplier: k.supplier, externalAccountNumber: k.external, attempts: r.item_attempts, reason: r.last_error, setAsideAt: r.set_aside_at, held: r.held };
  });
}

/** How many events are set aside. */
export async function setAsideEventCount(db: Knex): Promise<number> {
  const [{ n }] = (await db('outbox_pending').whereNotNull('set_aside_at').count({ n: '*' })) as { n: string }[];
  return Number(n);
}

/**
 * Puts set-aside events back on the pending queue with their attempts reset (all of them when
 * `seqs` is null); the seqs put back. A retried event goes out before the events it held.
 */
export async function retrySetAsideEvents(db: Knex, seqs: readonly number[] | null): Promise<number[]> {
  const rows = (await db.raw(
    `UPDATE outbox_pending SET set_aside_at = NULL, item_attempts = 0, attempted_at = NULL
     WHERE set_aside_at IS NOT NULL ${seqs === null ? '' : 'AND seq = ANY(?::bigint[])'} RETURNING seq`,
    seqs === null ? [] : [[...seqs]],
  )).rows as { seq: string }[];
  const back = rows.map((r) => Number(r.seq)).sort((a, b) => a - b);
  // The relay sleeps until an insert NOTIFYs it or its poll: wake it now.
  if (back.length > 0) await db.raw(`NOTIFY outbox`).catch(() => undefined);
  return back;
}
