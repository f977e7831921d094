import type { Knex } from 'knex';

/** Follow-ups that post-import queues for other services (customer emails on migration). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('customer_email_queue', (t) => {
    t.bigIncrements('id').primary();
    t.string('account_number', 32).notNullable();
    t.string('user_number', 32).notNullable();
    t.string('email', 320).notNullable();
    t.string('template', 64).notNullable();
    t.string('status', 16).notNullable().defaultTo('QUEUED');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // A retried post-import activity queues nothing twice.
    t.unique(['account_number', 'user_number', 'template']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('customer_email_queue');
}
