import type { Knex } from 'knex';

/**
 * Issue 39 (finding 6 and a Low item).
 *
 * Account references are unique per import supplier, no longer across all of them: with one
 * index over every tenant, organisation B learnt that another tenant held
 * `legacy-crm/CRM-5512093` (`reference_already_exists`) and, importing it first, blocked A's
 * import of it. A supplier's accounts are its tenant's; the organisations granted a supplier see
 * exactly its accounts. The new index leads with import_supplier, so the per-supplier lookups of
 * the validation and the account write (db/stores/accountLookups.ts findReferenceOwners,
 * imports/store.ts lockProcessForWrite) use it.
 *
 * refresh_tokens gets an index on key_id (the key's tokens are found by it: revocation, the
 * cascade of an API key's deletion, the maintenance pruning of maintenance/retention.ts).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('account_references', (t) => {
    t.unique(['import_supplier', 'namespace', 'value'], { indexName: 'account_references_supplier_namespace_value_unique' });
  });
  await knex.schema.alterTable('account_references', (t) => {
    t.dropUnique(['namespace', 'value']);
  });
  await knex.schema.alterTable('refresh_tokens', (t) => {
    t.index(['key_id'], 'refresh_tokens_key_id_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('refresh_tokens', (t) => {
    t.dropIndex(['key_id'], 'refresh_tokens_key_id_index');
  });
  // Fails while two suppliers' accounts hold the same reference: they would have to be told apart first.
  await knex.schema.alterTable('account_references', (t) => {
    t.unique(['namespace', 'value']);
  });
  await knex.schema.alterTable('account_references', (t) => {
    t.dropUnique(['import_supplier', 'namespace', 'value'], 'account_references_supplier_namespace_value_unique');
  });
}
