import type { Knex } from 'knex';

/**
 * The relay's wake-up (NOTIFY outbox) sent by a statement trigger on outbox_pending instead of a
 * statement of its own after every outbox insert: one round trip less per event-writing
 * transaction (two per import). Same delivery: PostgreSQL sends the notification when the
 * transaction commits, once per transaction however many statements raised it, and never for a
 * rolled-back one. The trigger fires for every insert statement into the queue, so no writer can
 * forget it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE FUNCTION outbox_pending_notify() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('outbox', '');
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE TRIGGER outbox_pending_notify AFTER INSERT ON outbox_pending
      FOR EACH STATEMENT EXECUTE FUNCTION outbox_pending_notify()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER outbox_pending_notify ON outbox_pending');
  await knex.raw('DROP FUNCTION outbox_pending_notify()');
}
