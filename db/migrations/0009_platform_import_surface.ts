import type { Knex } from 'knex';

/**
 * The rest of the platform's data-import surface (issue 15, platform/):
 * - the Account's platform fields `unknown_occupier` and `operations_team_name`;
 * - indexes for the per-supplier listings, which page by id (keyset) within one supplier: all
 *   processes, those with an account (PROCESSED) and those still pending (everything else).
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
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS import_processes_supplier_pending_idx');
  await knex.raw('DROP INDEX IF EXISTS import_processes_supplier_imported_idx');
  await knex.raw('DROP INDEX IF EXISTS import_processes_supplier_id_idx');
  await knex.schema.alterTable('accounts', (t) => {
    t.dropColumns('unknown_occupier', 'operations_team_name');
  });
}
