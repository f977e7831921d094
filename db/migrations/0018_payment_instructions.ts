import type { Knex } from 'knex';

/**
 * Payment instructions (Direct Debit mandates, cards…) of an account: the Account's
 * `payment_instructions` and those added after the import by `POST /v1/data-import/payment-instruction/create/`
 * (platform/paymentInstructions/; docs/api.md). Owned by the account like its other rows
 * (account_id, position; described in db/stores/accountTables.ts, read back with the account and
 * so covered by its digest), with the supplier it was imported on as its tenant scope. The
 * digest's forgetting triggers of migration 0016 are put on it here: a statement that changes a
 * row forgets the digest of its account.
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
  const table = 'payment_instructions';
  await knex.raw(`CREATE TRIGGER account_digest_forget_insert AFTER INSERT ON "${table}"
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION account_digest_forget_changed()`);
  await knex.raw(`CREATE TRIGGER account_digest_forget_update AFTER UPDATE ON "${table}"
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION account_digest_forget_updated()`);
  await knex.raw(`CREATE TRIGGER account_digest_forget_delete AFTER DELETE ON "${table}"
    REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION account_digest_forget_changed()`);
  await knex.raw(`CREATE TRIGGER account_digest_forget_truncate AFTER TRUNCATE ON "${table}"
    FOR EACH STATEMENT EXECUTE FUNCTION account_digest_forget_all()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('payment_instructions');
}
