import type { Knex } from 'knex';

/**
 * The other jobs several processes share survive an item they cannot handle, as the digest
 * filler's queue does since 0023 (issue 47, item 4; docs/operations.md "Set-aside queue items").
 *
 * - The outbox relay: `outbox_pending.item_attempts` counts the attempts that count against the
 *   event itself, each committed BEFORE the publish (`attempted_at`), so a relay killed by the event
 *   (a heap OOM reading its envelope back) leaves the count behind; an attempt that failed because
 *   NATS could not be reached is given back (`attempts` keeps counting every failed publish, as
 *   before). A row whose attempts reached the bound is set aside (`set_aside_at`, reason in
 *   `last_error`); it holds the later events of its ordering key (the relay publishes none of them
 *   until it is retried), so per-account order is never broken.
 * - The sweeper, the customer e-mail sender and retention: one row per item that failed or is being
 *   attempted in `queue_item_attempts` (queue, item), with the same columns; the item's own table is
 *   not touched (import_processes is big, and the item of retention is a batch, not a row).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE outbox_pending
    ADD COLUMN item_attempts integer NOT NULL DEFAULT 0,
    ADD COLUMN attempted_at timestamptz,
    ADD COLUMN set_aside_at timestamptz`);
  // Empty but for set-aside rows: the relay's check for a held ordering key costs nothing normally.
  await knex.raw('CREATE INDEX outbox_pending_set_aside_idx ON outbox_pending (seq) WHERE set_aside_at IS NOT NULL');
  await knex.raw(`CREATE TABLE queue_item_attempts (
    queue text NOT NULL,
    item text NOT NULL,
    import_supplier text,
    external_account_number text,
    attempts integer NOT NULL DEFAULT 0,
    attempted_at timestamptz,
    last_error text,
    set_aside_at timestamptz,
    PRIMARY KEY (queue, item))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE queue_item_attempts');
  await knex.raw('DROP INDEX outbox_pending_set_aside_idx');
  await knex.raw('ALTER TABLE outbox_pending DROP COLUMN item_attempts, DROP COLUMN attempted_at, DROP COLUMN set_aside_at');
}
