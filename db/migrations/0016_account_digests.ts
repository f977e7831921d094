import type { Knex } from 'knex';

/**
 * The digest of each account as stored (docs/bulk-migration.md, "Stored digests"), kept on its
 * accounts row so that the reconciliation's bulk operation need not read an account's few hundred
 * rows back to answer it: `accounts.stored_digest` is `<form>:sha256:<hex>` (db/stores/accountDigests.ts),
 * written by the transaction that creates the account (read back from its own rows) or by the
 * bulk operation once it has read an account whose digest was missing.
 *
 * It can never outlive the rows it was computed from: every statement that inserts, updates or
 * deletes rows of an account's tables (the 27 tables of the account's read-back and
 * account_references), or updates a column of the accounts row itself, forgets the digest of every
 * account it touched, in the same transaction, whoever runs it (the service, a top-up, an operator
 * with psql); a TRUNCATE forgets them all. Before forgetting, the trigger locks those accounts rows
 * (FOR NO KEY UPDATE): a reader storing a digest holds FOR UPDATE on the row from before it reads
 * the rows until it commits, so a writer that changed rows meanwhile waits and then forgets the
 * digest stored from the older rows (the reader skips rows a writer holds).
 */
const TABLES = [
  'account_users', 'account_user_preferences', 'psr_records', 'properties', 'property_administrators', 'meter_points',
  'agreements', 'smart_refusal_interests', 'eac_history', 'aq_history', 'meters', 'registers', 'transfer_readings',
  'reading_history', 'prepay_details', 'ledgers', 'ledger_transactions', 'payment_schedules', 'notes', 'note_documents',
  'statements', 'warm_home_discounts', 'dunning_paths', 'debts', 'aged_debts', 'account_campaigns', 'account_metadata',
];

const FORGET = (ids: string) => `
    PERFORM 1 FROM accounts WHERE id IN (${ids}) ORDER BY id FOR NO KEY UPDATE;
    UPDATE accounts SET stored_digest = NULL WHERE id IN (${ids}) AND stored_digest IS NOT NULL;
    RETURN NULL;`;

/**
 * The four triggers that make a statement on `table` forget the stored digests of the accounts it
 * touched (`suffix` '_references' for account_references, keyed by supplier and external number):
 * every later migration that adds a table of the account's read-back calls it for that table.
 */
export async function createDigestForgetTriggers(knex: Knex, table: string, suffix: '' | '_references' = ''): Promise<void> {
  await knex.raw(`CREATE TRIGGER account_digest_forget_insert AFTER INSERT ON "${table}"
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION account_digest_forget_changed${suffix}()`);
  await knex.raw(`CREATE TRIGGER account_digest_forget_update AFTER UPDATE ON "${table}"
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION account_digest_forget_updated${suffix}()`);
  await knex.raw(`CREATE TRIGGER account_digest_forget_delete AFTER DELETE ON "${table}"
    REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION account_digest_forget_changed${suffix}()`);
  await knex.raw(`CREATE TRIGGER account_digest_forget_truncate AFTER TRUNCATE ON "${table}"
    FOR EACH STATEMENT EXECUTE FUNCTION account_digest_forget_all()`);
}

export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE accounts ADD COLUMN stored_digest text');
  // Accounts whose digest the filler is to store (the create inserts the row with the account).
  await knex.raw('CREATE TABLE account_digest_pending (account_id bigint PRIMARY KEY)');
  // Rows of the account tables: by account_id, from the statement's transition tables.
  await knex.raw(`CREATE FUNCTION account_digest_forget_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN${FORGET('SELECT account_id FROM changed_rows')}
    END $$`);
  await knex.raw(`CREATE FUNCTION account_digest_forget_updated() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN${FORGET('SELECT account_id FROM changed_rows UNION SELECT account_id FROM old_rows')}
    END $$`);
  // References: by the supplier and external account number they are kept under.
  const refs = (rows: string) => `SELECT a.id FROM accounts a JOIN (${rows}) r ON a.import_supplier = r.import_supplier AND a.external_account_number = r.external_account_number`;
  await knex.raw(`CREATE FUNCTION account_digest_forget_changed_references() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN${FORGET(refs('SELECT import_supplier, external_account_number FROM changed_rows'))}
    END $$`);
  await knex.raw(`CREATE FUNCTION account_digest_forget_updated_references() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN${FORGET(refs('SELECT import_supplier, external_account_number FROM changed_rows UNION SELECT import_supplier, external_account_number FROM old_rows'))}
    END $$`);
  await knex.raw(`CREATE FUNCTION account_digest_forget_all() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE accounts SET stored_digest = NULL WHERE stored_digest IS NOT NULL;
      RETURN NULL;
    END $$`);
  // The accounts row: any column but the digest changed (or the digest left as it was) forgets it.
  await knex.raw(`CREATE FUNCTION account_digest_forget_account() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.stored_digest IS NOT DISTINCT FROM OLD.stored_digest
         AND (to_jsonb(NEW) - 'stored_digest') IS DISTINCT FROM (to_jsonb(OLD) - 'stored_digest') THEN
        NEW.stored_digest := NULL;
      END IF;
      RETURN NEW;
    END $$`);
  await knex.raw(`CREATE TRIGGER account_digest_forget BEFORE UPDATE ON accounts
    FOR EACH ROW WHEN (OLD.stored_digest IS NOT NULL) EXECUTE FUNCTION account_digest_forget_account()`);
  for (const [table, suffix] of [...TABLES.map((t) => [t, ''] as const), ['account_references', '_references'] as const]) {
    await createDigestForgetTriggers(knex, table, suffix);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [...TABLES, 'account_references']) {
    for (const op of ['insert', 'update', 'delete', 'truncate']) await knex.raw(`DROP TRIGGER account_digest_forget_${op} ON "${table}"`);
  }
  await knex.raw('DROP TRIGGER account_digest_forget ON accounts');
  for (const f of ['changed', 'updated', 'changed_references', 'updated_references', 'all', 'account']) await knex.raw(`DROP FUNCTION account_digest_forget_${f}()`);
  await knex.raw('DROP TABLE account_digest_pending');
  await knex.raw('ALTER TABLE accounts DROP COLUMN stored_digest');
}
