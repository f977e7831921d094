import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('import_suppliers', (t) => {
    t.string('code', 64).primary();
    t.string('status', 16).notNullable().defaultTo('Ongoing');
    t.text('document_root').notNullable().defaultTo('');
    t.boolean('check_document_existence').notNullable().defaultTo(false);
    t.boolean('send_customer_emails').notNullable().defaultTo(false);
    t.integer('registration_lead_days').notNullable().defaultTo(1);
    t.string('market_participant_id', 8).nullable();
    t.jsonb('configuration').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('modified_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(
    `ALTER TABLE import_suppliers ADD CONSTRAINT import_suppliers_status_check CHECK (status IN ('Ongoing','Paused','Complete'))`,
  );

  await knex.schema.createTable('import_processes', (t) => {
    t.bigIncrements('id').primary();
    t.string('import_supplier', 64).notNullable().references('code').inTable('import_suppliers');
    t.string('external_account_number', 128).notNullable();
    t.string('status', 32).notNullable();
    t.string('kraken_identifier', 32).nullable();
    // Claim check: the payload lives here; workflows only carry ids.
    t.jsonb('payload').notNullable();
    t.jsonb('task_params').notNullable().defaultTo('{}');
    t.boolean('is_dry_run').notNullable().defaultTo(false);
    t.timestamp('schedule_window_start', { useTz: true }).notNullable();
    t.timestamp('schedule_window_end', { useTz: true }).notNullable();
    // Every (re)start of the import is a new run; events of a run carry its number in their ids.
    t.integer('run').notNullable().defaultTo(1);
    t.string('workflow_id', 300).notNullable();
    t.string('workflow_run_id', 64).nullable();
    t.string('current_step', 32).nullable();
    t.jsonb('latest_event').notNullable();
    t.jsonb('latest_error').nullable();
    t.jsonb('warnings').notNullable().defaultTo('[]');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('modified_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['import_supplier', 'external_account_number']);
    t.index(['import_supplier', 'status']);
    t.index(['status']);
  });

  await knex.schema.createTable('outbox', (t) => {
    t.bigIncrements('seq').primary();
    t.uuid('event_id').notNullable().unique();
    t.string('event_type', 200).notNullable();
    t.string('event_version', 16).notNullable();
    t.string('subject', 300).notNullable();
    t.string('ordering_key', 300).notNullable();
    t.jsonb('envelope').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('published_at', { useTz: true }).nullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.text('last_error').nullable();
  });
  // The relay reads unpublished rows in commit order; a partial index keeps that scan small.
  await knex.raw('CREATE INDEX outbox_unpublished_idx ON outbox (seq) WHERE published_at IS NULL');

  await knex.schema.createTable('accounts', (t) => {
    t.bigIncrements('id').primary();
    t.string('number', 32).notNullable().unique();
    t.string('import_supplier', 64).notNullable().references('code').inTable('import_suppliers');
    t.string('external_account_number', 128).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['import_supplier', 'external_account_number']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('accounts');
  await knex.schema.dropTableIfExists('outbox');
  await knex.schema.dropTableIfExists('import_processes');
  await knex.schema.dropTableIfExists('import_suppliers');
}
