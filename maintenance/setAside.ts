import type { Knex } from 'knex';
import { listSetAside as listDigestSetAside, retrySetAside as retryDigest, setAsideCount as digestSetAsideCount } from '../db/stores/digestQueue';
import { listSetAsideItems, retrySetAsideItems, setAsideItemCounts } from '../db/stores/queueItems';
import { listSetAsideEvents, retrySetAsideEvents, setAsideEventCount } from '../events/outboxSetAside';
import { emailTemplatesOf } from '../emails';

/**
 * Every set-aside item of the jobs the workers share, whichever queue holds it (issue 47, item 4;
 * docs/operations.md "Set-aside queue items"): what `data-import set-aside list|retry`, the
 * operations page and its tile read. Each queue's rows are read and put back by its table's owner;
 * this file only gathers them.
 * - `digest`: the digest filler's accounts (account_digest_pending, migration 0023, db/stores/digestQueue.ts); id = account id.
 * - `outbox`: events the relay could not publish (outbox_pending, migration 0024, events/outboxSetAside.ts); id = outbox seq.
 *   A set-aside event holds the later events of its ordering key (`held`): they are published once
 *   it is retried and goes out, never before it.
 * - `sweeper`: stored imports whose workflow the sweeper could not start (queue_item_attempts,
 *   db/stores/queueItems.ts); id = import process id (its run in `item`).
 * - `email`: customer e-mails the sender could not handle (queue_item_attempts; the e-mail is
 *   FAILED); id = customer_email_queue id, named by emails/. Once retried, `data-import emails resend` sends it.
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

async function listOutbox(db: Knex, limit: number): Promise<SetAsideItem[]> {
  return (await listSetAsideEvents(db, limit)).map((e) => ({
    queue: 'outbox',
    id: e.seq,
    item: e.type,
    supplier: e.supplier,
    externalAccountNumber: e.externalAccountNumber,
    attempts: e.attempts,
    reason: e.reason,
    setAsideAt: e.setAsideAt,
    held: e.held,
  }));
}

async function listItems(db: Knex, queue: 'sweeper' | 'email' | 'retention', limit: number): Promise<SetAsideItem[]> {
  const rows = await listSetAsideItems(db, queue, limit);
  const emails = queue === 'email' ? await emailTemplatesOf(db, rows.map((r) => Number(r.item))) : null;
  const emailLabel = (id: number) => {
    const e = emails!.get(id);
    return e ? `${e.template} of account ${e.accountNumber}` : 'e-mail (deleted)';
  };
  return rows.map((r) => ({
    queue,
    id: queue === 'retention' ? r.item : Number(r.item.split(':')[0]),
    item: queue === 'sweeper' ? `run ${r.item.split(':')[1] ?? '?'}` : queue === 'email' ? emailLabel(Number(r.item)) : null,
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
  const [digest, outbox, items] = await Promise.all([digestSetAsideCount(db), setAsideEventCount(db), setAsideItemCounts(db)]);
  return { digest, outbox, sweeper: items.sweeper ?? 0, email: items.email ?? 0, retention: items.retention ?? 0 };
}

/**
 * Puts set-aside items of one queue back with their attempts reset (all of them when `ids` is
 * null); the ids put back. A retried outbox event goes out before the events it held. A retried
 * e-mail stays FAILED until `data-import emails resend` sends it; a retried retention batch is
 * pruned by the next retention run.
 */
export async function retryQueue(db: Knex, queue: SetAsideQueue, ids: readonly (number | string)[] | null): Promise<(number | string)[]> {
  if (queue === 'retention') return (await retrySetAsideItems(db, 'retention', ids === null ? null : ids.map(String))).sort();
  const numbers = ids === null ? null : ids.map(Number);
  if (queue === 'digest') return retryDigest(db, numbers);
  if (queue === 'outbox') return retrySetAsideEvents(db, numbers);
  const back = await retrySetAsideItems(db, queue, numbers === null ? null : numbers.map(String));
  return back.map((item) => Number(item.split(':')[0])).sort((a, b) => a - b);
}
