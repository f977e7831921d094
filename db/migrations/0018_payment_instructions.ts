import type { Knex } from 'knex';
import { createDigestForgetTriggers } from './0016_account_digests';

/**
 * Payment instructions (Direct Debit mandates, cards…), payment preferences and the deprecated
 * `dd_reference` of an account (issue 35, area 1; issue 36, item 5). Instructions: the Account's
 * `payment_instructions` and those added after the import by `POST /v1/data-import/payment-instruction/create/`
 * (paymentInstructions/paymentInstruction.ts; docs/api.md). Owned by the account like its other rows
 * (account_id, position; described in db/stores/accountTables.ts, read back with the account and
 * so covered by its digest), with the supplier it was imported on as its tenant scope. The
 * digest's forgetting triggers of migration 0016 are put on both new tables here: a statement that
 * changes a row forgets the digest of its account (accounts' own trigger covers `dd_reference`).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('payment_instructions', (t) => {
    t.bigIncrements('id').primary();
    t.bigInteger('account_id').notNullable().references('id').inTable('accounts').onDelete('CASCADE');
    t.index(['account_id']);
    t.integer('position').notNullable();
    t.text('import_supplier').notNullable();
    t.text('reference').notNullable();
    t.text('type').notNullable();
    t.text('vendor').notNullable();
    t.text('ledger_code');
    t.boolean('use_for_scheduled_payments');
    t.date('valid_from');
    t.text('customer_reference');
    t.text('instruction_identifier');
    t.text('sort_code');
    t.text('bank_account_number');
    t.unique(['account_id', 'position']);
    t.index(['import_supplier', 'reference']);
  });
  await knex.schema.createTable('payment_preferences', (t) => {
    t.bigIncrements('id').primary();
    t.bigInteger('account_id').notNullable().references('id').inTable('accounts').onDelete('CASCADE');
    t.index(['account_id']);
    t.integer('position').notNullable();
    t.text('type').notNullable();
    t.text('ledger_identifier').notNullable();
    // instruction_reference_params: the vendor's mandate (ACTIVE_EXISTING) or one of the account's instructions (ACTIVE_NEW).
    t.text('vendor_name');
    t.text('vendor_reference');
    t.text('instruction_identifier');
  });
  await knex.schema.alterTable('accounts', (t) => {
    t.text('dd_reference');
  });
  for (const table of ['payment_instructions', 'payment_preferences']) {
    await createDigestForgetTriggers(knex, table);
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('accounts', (t) => {
    t.dropColumn('dd_reference');
  });
  await knex.schema.dropTableIfExists('payment_preferences');
  await knex.schema.dropTableIfExists('payment_instructions');
}
