import type { Knex } from 'knex';

/**
 * The rest of the platform's data-import surface (platform/; docs/api.md, "The platform's other data-import operations"):
 * - the Account's platform fields `unknown_occupier` and `operations_team_name`;
 * - indexes for the per-supplier listings, which page by id (keyset) within one supplier: all
 *   processes, those with an account (PROCESSED) and those still pending (everything else);
 * - the post-import top-ups of an imported account: transactions, notes, historical statements.
 *   Kept apart from the imported rows (0003), which stay exactly what the import wrote; each is
 *   unique on the platform's identifier within the account, which is what makes a retry a no-op.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('accounts', (t) => {
    t.boolean('unknown_occupier');
    t.text('operations_team_name');
  });
  await knex.raw('CREATE INDEX import_processes_supplier_id_idx ON import_processes (import_supplier, id)');
  await knex.raw(
    `CREATE INDEX import_processes_supplier_imported_idx ON import_processes (import_supplier, id) WHERE status = 'PROCESSED'`,
  );
  await knex.raw(
    `CREATE INDEX import_processes_supplier_pending_idx ON import_processes (import_supplier, id) WHERE status <> 'PROCESSED'`,
  );

  await knex.schema.createTable('post_import_transactions', (t) => {
    t.bigIncrements('id').primary();
    t.bigInteger('account_id').notNullable().references('id').inTable('accounts').onDelete('CASCADE');
    t.bigInteger('ledger_id').notNullable().references('id').inTable('ledgers').onDelete('CASCADE');
    t.text('transaction_id').notNullable();
    t.date('transaction_date').notNullable();
    // Set when force_add_to_current_statement moved the date into the open statement period.
    t.date('requested_date');
    t.decimal('amount', 20, 2).notNullable();
    t.text('type').notNullable();
    t.text('reason');
    t.text('payment_type');
    t.text('reference');
    t.text('display_note');
    t.text('note');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['account_id', 'transaction_id']);
  });
  await knex.schema.createTable('post_import_notes', (t) => {
    t.bigIncrements('id').primary();
    t.bigInteger('account_id').notNullable().references('id').inTable('accounts').onDelete('CASCADE');
    t.text('external_id');
    t.text('body').notNullable().defaultTo('');
    t.timestamp('created_at', { useTz: true }).notNullable();
    // The platform dedupes on body (+ created_at when the caller gave one).
    t.boolean('created_at_given').notNullable();
    t.jsonb('document_paths').notNullable().defaultTo('[]');
    t.boolean('is_pinned').notNullable().defaultTo(false);
    t.boolean('is_archived').notNullable().defaultTo(false);
    t.timestamp('unpin_at', { useTz: true });
    t.index(['account_id']);
  });
  await knex.raw('CREATE UNIQUE INDEX post_import_notes_external_id_idx ON post_import_notes (account_id, external_id) WHERE external_id IS NOT NULL');
  await knex.schema.createTable('post_import_statements', (t) => {
    t.bigIncrements('id').primary();
    t.bigInteger('account_id').notNullable().references('id').inTable('accounts').onDelete('CASCADE');
    t.text('statement_id').notNullable();
    t.date('bill_period_from_date').notNullable();
    t.date('bill_period_to_date').notNullable();
    t.date('issued_date');
    t.text('number');
    t.bigInteger('gross_amount');
    t.text('statement_path');
    t.unique(['account_id', 'statement_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['post_import_statements', 'post_import_notes', 'post_import_transactions']) await knex.schema.dropTableIfExists(table);
  await knex.raw('DROP INDEX IF EXISTS import_processes_supplier_pending_idx');
  await knex.raw('DROP INDEX IF EXISTS import_processes_supplier_imported_idx');
  await knex.raw('DROP INDEX IF EXISTS import_processes_supplier_id_idx');
  await knex.schema.alterTable('accounts', (t) => {
    t.dropColumns('unknown_occupier', 'operations_team_name');
  });
}
