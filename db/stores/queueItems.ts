import type { Knex } from 'knex';
import type { QueuePolicy } from './digestQueue';

/**
 * Attempts at the items of a job several processes share whose items live in a table of their own
 * (the sweeper's unstarted runs, and the next ones: issue 47, item 4), in `queue_item_attempts`
 * (migration 0024), the digest queue's rules (db/stores/digestQueue.ts): an attempt is recorded and
 * committed before the work, so a process the item kills leaves its count behind; a row attempted
 * less than `leaseMs` ago is another process's; an item whose attempts reached the bound is set
 * aside with its reason and taken by no one until an operator retries it (docs/operations.md
 * "Set-aside queue items"). A row exists only while an item fails or is being attempted: success
 * deletes it.
 */

/**
 * The queues of this table: the sweeper's runs (item `<import process id>:<run>`), the customer
 * e-mail sender's e-mails (item = customer_email_queue id) and retention's batches (item
 * `<table>:<key range>`, maintenance/retention.ts).
 */
export type ItemQueue = 'sweeper' | 'email' | 'retention';

export interface ItemLabel {
  importSupplier?: string | null;
  externalAccountNumber?: string | null;
}

export type ClaimResult = { taken: true; attempt: number } | { taken: false; setAside: boolean };

/**
 * Records one attempt at the item before the work. Not taken: the item is set aside (`setAside`
 * true when this call did it: its attempts reached the bound and the last never finished), or
 * another process attempted it within the lease.
 */
export async function claimItem(db: Knex, queue: ItemQueue, item: string, label: ItemLabel, policy: QueuePolicy): Promise<ClaimResult> {
  const taken = (await db.raw(
    `INSERT INTO queue_item_attempts AS q (queue, item, import_supplier, external_account_number, attempts, attempted_at)
     VALUES (?, ?, ?, ?, 1, now())
     ON CONFLICT (queue, item) DO UPDATE SET attempts = q.attempts + 1, attempted_at = now()
       WHERE q.set_aside_at IS NULL AND q.attempts < ?
         AND (q.attempted_at IS NULL OR q.attempted_at < now() - make_interval(secs => ?::double precision / 1000))
     RETURNING attempts`,
    [queue, item, label.importSupplier ?? null, label.externalAccountNumber ?? null, policy.maxAttempts, policy.leaseMs],
  )).rows as { attempts: number }[];
  if (taken.length > 0) return { taken: true, attempt: taken[0]!.attempts };
  const aside = (await db.raw(
    `UPDATE queue_item_attempts SET set_aside_at = now(), attempted_at = NULL,
       last_error = left(coalesce(last_error || '; ', '') || 'attempt ' || attempts || ' never finished (the process stopped: a crash or out of memory)', 1000)
     WHERE queue = ? AND item = ? AND set_aside_at IS NULL AND attempts >= ?
       AND (attempted_at IS NULL OR attempted_at < now() - make_interval(secs => ?::double precision / 1000))
     RETURNING item`,
    [queue, item, policy.maxAttempts, policy.leaseMs],
  )).rows as unknown[];
  return { taken: false, setAside: aside.length > 0 };
}

/** The item's work is done: its attempts go. */
export async function itemDone(db: Knex, queue: ItemQueue, item: string): Promise<void> {
  await db('queue_item_attempts').where({ queue, item }).whereNull('set_aside_at').delete();
}

/** Records a failed attempt's reason, freeing the item for the next pass; at its last attempt it is set aside (true). */
export async function itemFailed(db: Knex, queue: ItemQueue, item: string, reason: string, policy: QueuePolicy): Promise<boolean> {
  const rows = (await db.raw(
    `UPDATE queue_item_attempts SET last_error = left(?, 1000), attempted_at = NULL,
       set_aside_at = CASE WHEN attempts >= ? THEN now() END
     WHERE queue = ? AND item = ? AND set_aside_at IS NULL RETURNING set_aside_at`,
    [reason, policy.maxAttempts, queue, item],
  )).rows as { set_aside_at: Date | null }[];
  return rows.some((r) => r.set_aside_at !== null);
}

/** The attempt failed for a reason not the item's (an outage): it is given back, as if never made. */
export async function itemGiveBack(db: Knex, queue: ItemQueue, item: string): Promise<void> {
  await db.raw(`UPDATE queue_item_attempts SET attempts = greatest(attempts - 1, 0), attempted_at = NULL WHERE queue = ? AND item = ? AND set_aside_at IS NULL`, [queue, item]);
  await db('queue_item_attempts').where({ queue, item, attempts: 0 }).whereNull('set_aside_at').whereNull('last_error').delete();
}

/** Whether the item is set aside now. */
export async function isItemSetAside(db: Knex, queue: ItemQueue, item: string): Promise<boolean> {
  return (await db('queue_item_attempts').where({ queue, item }).whereNotNull('set_aside_at').first('item')) !== undefined;
}

/** The items of `queue` set aside now whose name starts with `prefix`. */
export async function setAsideItems(db: Knex, queue: ItemQueue, prefix: string): Promise<string[]> {
  const rows = (await db('queue_item_attempts').where({ queue }).whereNotNull('set_aside_at').whereRaw('starts_with(item, ?)', [prefix]).select('item')) as { item: string }[];
  return rows.map((r) => r.item);
}

/** SQL: true when the item of `queue` named by the expression `itemSql` is set aside (for the finders' WHERE). */
export function isSetAsideSql(queue: ItemQueue, itemSql: string): string {
  return `EXISTS (SELECT 1 FROM queue_item_attempts qa WHERE qa.queue = '${queue}' AND qa.item = ${itemSql} AND qa.set_aside_at IS NOT NULL)`;
}

export interface SetAsideAttempt {
  item: string;
  import_supplier: string | null;
  external_account_number: string | null;
  attempts: number;
  last_error: string | null;
  set_aside_at: Date;
}

/** The set-aside items of `queue`, oldest first, at most `limit` (`data-import set-aside list`, maintenance/setAside.ts). */
export async function listSetAsideItems(db: Knex, queue: ItemQueue, limit: number): Promise<SetAsideAttempt[]> {
  return (await db('queue_item_attempts').where({ queue }).whereNotNull('set_aside_at').orderBy([{ column: 'set_aside_at' }, { column: 'item' }]).limit(limit)) as SetAsideAttempt[];
}

/** How many items each queue holds set aside (a queue with none is left out). */
export async function setAsideItemCounts(db: Knex): Promise<Partial<Record<ItemQueue, number>>> {
  const rows = (await db('queue_item_attempts').whereNotNull('set_aside_at').select('queue').count({ n: '*' }).groupBy('queue')) as { queue: ItemQueue; n: string }[];
  return Object.fromEntries(rows.map((r) => [r.queue, Number(r.n)]));
}

/**
 * Puts set-aside items of `queue` back, their attempts gone (all of them when `ids` is null); the
 * items put back. A retention batch is named by its whole item; the sweeper's and the e-mails' by
 * the item's first part (`<import process id>` of `<id>:<run>`, the e-mail id).
 */
export async function retrySetAsideItems(db: Knex, queue: ItemQueue, ids: readonly string[] | null): Promise<string[]> {
  if (queue === 'retention') {
    const rows = (await db.raw(
      `DELETE FROM queue_item_attempts WHERE queue = 'retention' AND set_aside_at IS NOT NULL ${ids === null ? '' : 'AND item = ANY(?::text[])'} RETURNING item`,
      ids === null ? [] : [[...ids]],
    )).rows as { item: string }[];
    return rows.map((r) => r.item);
  }
  const rows = (await db.raw(
    `DELETE FROM queue_item_attempts WHERE queue = ? AND set_aside_at IS NOT NULL ${ids === null ? '' : `AND split_part(item, ':', 1) = ANY(?::text[])`} RETURNING item`,
    ids === null ? [queue] : [queue, [...ids]],
  )).rows as { item: string }[];
  return rows.map((r) => r.item);
}
