import type { Knex } from 'knex';

/**
 * Customer e-mails really delivered (docs/customer-emails.md): delivery state on the queue rows
 * 0004 created (the table name and its upper-case `status` stay: operations count by them), the
 * sender settings and sending rate of each supplier, and one rate row per supplier that every
 * worker reserves its sending slots from.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('customer_email_queue', (t) => {
    // QUEUED → SENT | BOUNCED | FAILED; SKIPPED for a customer without an address (counted, never sent).
    t.string('email', 320).nullable().alter();
    t.string('import_supplier', 64);
    t.string('external_account_number', 128);
    t.bigInteger('user_id');
    // Stable per account + customer + template: a re-sent copy carries the same id.
    t.string('message_id', 200);
    t.integer('attempts').notNullable().defaultTo(0);
    t.text('last_smtp_response');
    t.timestamp('last_attempt_at', { useTz: true });
    t.timestamp('sent_at', { useTz: true });
    t.timestamp('bounced_at', { useTz: true });
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['account_number', 'status']);
    t.index(['import_supplier', 'status']);
  });
  await knex.raw(`ALTER TABLE customer_email_queue ADD CONSTRAINT customer_email_queue_status_check
    CHECK (status IN ('QUEUED', 'SENT', 'BOUNCED', 'FAILED', 'SKIPPED'))`);

  await knex.schema.alterTable('import_suppliers', (t) => {
    t.string('email_from_name', 128);
    t.string('email_from_address', 320);
    t.string('email_reply_to', 320);
    // Messages per second across all workers; modest by default so a relay is never flooded.
    t.decimal('email_rate_per_second', 10, 3).notNullable().defaultTo(2);
  });
  await knex.raw(`ALTER TABLE import_suppliers ADD CONSTRAINT import_suppliers_email_rate_positive CHECK (email_rate_per_second > 0)`);

  // The last slot handed out per supplier: the next one is at least 1/rate seconds later.
  await knex.schema.createTable('customer_email_rate', (t) => {
    t.string('import_supplier', 64).primary();
    t.timestamp('last_slot_at', { useTz: true }).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('customer_email_rate');
  await knex.raw('ALTER TABLE import_suppliers DROP CONSTRAINT IF EXISTS import_suppliers_email_rate_positive');
  await knex.schema.alterTable('import_suppliers', (t) => {
    t.dropColumns('email_from_name', 'email_from_address', 'email_reply_to', 'email_rate_per_second');
  });
  await knex.raw('ALTER TABLE customer_email_queue DROP CONSTRAINT IF EXISTS customer_email_queue_status_check');
  await knex('customer_email_queue').whereNull('email').delete();
  await knex.schema.alterTable('customer_email_queue', (t) => {
    t.dropIndex(['account_number', 'status']);
    t.dropIndex(['import_supplier', 'status']);
    t.dropColumns('import_supplier', 'external_account_number', 'user_id', 'message_id', 'attempts', 'last_smtp_response', 'last_attempt_at', 'sent_at', 'bounced_at', 'updated_at');
    t.string('email', 320).notNullable().alter();
  });
}
