import type { Knex } from 'knex';
import { listSetAside as listDigestSetAside, retrySetAside as retryDigest, setAsideCount as digestSetAsideCount } from './digestQueue';

/**
 * Every set-aside item of the jobs the workers share, whichever queue holds it (issue 47, item 4;
 * docs/operations.md "Set-aside queue items"): what `data-import set-aside list|retry`, the
 * operations page and its tile read.
 * - `digest`: the digest filler's accounts (account_digest_pending, migration 0023); id = account id.
 * - `outbox`: events the relay could not publish (outbox_pending, migration 0024); id = outbox seq.
 *   A set-aside event holds the later events of its ordering key (`held`): they are published once
 *   it is retried and goes out, never before it.
 * - `sweeper`: stored imports whose workflow the sweeper could not start (queue_item_attempts);
 *   id = import process id (its run in `item`).
 * - `email`: customer e-mails the sender could not handle (queue_item_attempts; the e-mail is
 *   FAILED); id = customer_email_queue id. Once retried, `data-import emails resend` sends it.
 * - `retention`: batches retention could not prune (queue_item_attempts); id = the batch,
 *   `<table>:<first key>..<last key>`, whose rows retention leaves alone until it is retried.
 */
export const SET_ASIDE_QUEUES = ['digest', 'outbox', 'sweeper', 'email', 'retention'] as const;
export type SetAsideQueue = (typeof SET_ASIDE_QUEUES)[number];

export interface SetAsideItem {
  queue: SetAsideQueue;
  /** A number, but for retention: its batch (`<table>:<first key>..<last key>`). */
  id: number | string;
  /** What the item is, beyond its id (an event's type, an import's run). */
  item: string | null;
  supplier: string | null;
  externalAccountNumber: string | null;
  attempts: number;
  reason: string | null;
  setAsideAt: Date;
  /** Outbox: later events of the same account waiting behind this one. */
  held?: number;
}

/** `account-import:<supplier>:<external account number>` (events/orderingKey.ts), read back. */
function fromOrderingKey(key: string): { supplier: string | null; external: string | null } {
  const m = /^account-import:([^:]*):(.*)$/.exec(key);
  return m ? { supplier: m[1]!, external: m[2]! } : { supplier: null, external: null };
}

async function listOutbox(db: Knex, limit: number): Promise<SetAsideItem[]> {
  const rows = (await db.raw(
    `SELECT p.seq, o.event_type, o.event_version, o.ordering_key, p.item_attempts, p.last_error, p.set_aside_at,
       (SELECT count(*) FROM outbox_pending l JOIN outbox lo ON lo.seq = l.seq WHERE l.seq > p.seq AND lo.ordering_key = o.ordering_key)::int AS held
     FROM outbox_pending p JOIN outbox o ON o.seq = p.seq
     WHERE p.set_aside_at IS NOT NULL ORDER BY p.set_aside_at, p.seq LIMIT ?`,
    [limit],
  )).rows as { seq: string; event_type: string; event_version: string; ordering_key: string; item_attempts: number; last_error: string | null; set_aside_at: Date; held: number }[];
  return rows.map((r) => {
    const k = fromOrderingKey(r.ordering_key);
    return { queue: 'outbox', id: Number(r.seq), item: `${r.event_type}-${r.event_version}`, supplier: k.supplier, externalAccountNumber: k.external, attempts: r.item_attempts, reason: r.last_error, setAsideAt: r.set_aside_at, held: r.held };
  });
}

interface AttemptRow {
  item: string;
  import_supplier: string | null;
  external_account_number: string | null;
  attempts: number;
  last_error: string | null;
  set_aside_at: Date;
}

async function listItems(db: Knex, queue: 'sweeper' | 'email' | 'retention', limit: number): Promise<SetAsideItem[]> {
  const rows = (await db('queue_item_attempts').where({ queue }).whereNotNull('set_aside_at').orderBy([{ column: 'set_aside_at' }, { column: 'item' }]).limit(limit)) as AttemptRow[];
  const emails =
    queue === 'email'
      ? new Map(
          ((await db('customer_email_queue').whereIn('id', rows.map((r) => Number(r.item))).select('id', 'template', 'account_number')) as { id: string; template: string; account_number: string }[]).map((e) => [
            Number(e.id),
            `${e.template} of account ${e.account_number}`,
          ]),
        )
      : null;
  return rows.map((r) => ({
    queue,
    id: queue === 'retention' ? r.item : Number(r.item.split(':')[0]),
    item: queue === 'sweeper' ? `run ${r.item.split(':')[1] ?? '?'}` : queue === 'email' ? (emails!.get(Number(r.item)) ?? 'e-mail (deleted)') : null,
    supplier: r.import_supplier,
    externalAccountNumber: r.external_account_number,
    attempts: r.attempts,
    reason: r.last_error,
    setAsideAt: r.set_aside_at,
  }));
}

/** The set-aside items of one queue or all, oldest first within each queue, at most `limit` of each. */
export async function listAllSetAside(db: Knex, opts: { queue?: SetAsideQueue; limit?: number } = {}): Promise<SetAsideItem[]> {
  const limit = opts.limit ?? 100;
  const want = (q: SetAsideQueue) => !opts.queue || opts.queue === q;
  const out: SetAsideItem[] = [];
  if (want('digest')) out.push(...(await listDigestSetAside(db, limit)).map((i) => ({ ...i, item: null })));
  if (want('outbox')) out.push(...(await listOutbox(db, limit)));
  for (const q of ['sweeper', 'email', 'retention'] as const) if (want(q)) out.push(...(await listItems(db, q, limit)));
  return out;
}

/** How many items each queue holds set aside. */
export async function setAsideCounts(db: Knex): Promise<Record<SetAsideQueue, number>> {
  const [digest, outbox, items] = await Promise.all([
    digestSetAsideCount(db),
    db('outbox_pending').whereNotNull('set_aside_at').count({ n: '*' }) as Promise<{ n: string }[]>,
    db('queue_item_attempts').whereNotNull('set_aside_at').select('queue').count({ n: '*' }).groupBy('queue') as Promise<{ queue: string; n: string }[]>,
  ]);
  const byQueue = Object.fromEntries(items.map((r) => [r.queue, Number(r.n)]));
  return { digest, outbox: Number(outbox[0]!.n), sweeper: byQueue.sweeper ?? 0, email: byQueue.email ?? 0, retention: byQueue.retention ?? 0 };
}

/**
 * Puts set-aside items of one queue back with their attempts reset (all of them when `ids` is
 * null); the ids put back. A retried outbox event goes out before the events it held. A retried
 * e-mail stays FAILED until `data-import emails resend` sends it; a retried retention batch is
 * pruned by the next retention run.
 */
export async function retryQueue(db: Knex, queue: SetAsideQueue, ids: readonly (number | string)[] | null): Promise<(number | string)[]> {
  if (queue === 'retention') {
    const rows = (await db.raw(
      `DELETE FROM queue_item_attempts WHERE queue = 'retention' AND set_aside_at IS NOT NULL ${ids === null ? '' : 'AND item = ANY(?::text[])'} RETURNING item`,
      ids === null ? [] : [ids.map(String)],
    )).rows as { item: string }[];
    return rows.map((r) => r.item).sort();
  }
  const numbers = ids === null ? null : ids.map(Number);
  if (queue === 'digest') return retryDigest(db, numbers);
  if (queue === 'outbox') {
    const rows = (await db.raw(
      `UPDATE outbox_pending SET set_aside_at = NULL, item_attempts = 0, attempted_at = NULL
       WHERE set_aside_at IS NOT NULL ${numbers === null ? '' : 'AND seq = ANY(?::bigint[])'} RETURNING seq`,
      numbers === null ? [] : [numbers],
    )).rows as { seq: string }[];
    const back = rows.map((r) => Number(r.seq)).sort((a, b) => a - b);
    // The relay sleeps until an insert NOTIFYs it or its poll: wake it now.
    if (back.length > 0) await db.raw(`NOTIFY outbox`).catch(() => undefined);
    return back;
  }
  const rows = (await db.raw(
    `DELETE FROM queue_item_attempts WHERE queue = ? AND set_aside_at IS NOT NULL ${numbers === null ? '' : `AND split_part(item, ':', 1) = ANY(?::text[])`} RETURNING item`,
    numbers === null ? [queue] : [queue, numbers.map(String)],
  )).rows as { item: string }[];
  return rows.map((r) => Number(r.item.split(':')[0])).sort((a, b) => a - b);
}
