// long-file (368 lines): migrations stay explicit, one per release, never generated.
// Over 300 lines on purpose: migrations stay explicit, one per release, never generated; the
// descriptor db/stores/accountTables.ts is held to this file by test/integration/accountTables.test.ts.
import type { Knex } from 'knex';

/**
 * The whole imported Account, one real column per payload field (only metadata `value` is jsonb).
 *
 * Conventions, the same on every table:
 * - `id` bigserial; `account_id` on every table, indexed, so an account is deleted table by table
 *   in one statement and every table can be read per account without joins. Foreign keys point at
 *   the owner (ON DELETE CASCADE); see owned() for why nested rows have no key on account_id.
 * - `position` is the element's index in its payload array: the payload order is part of what the
 *   integrator sent, and loadAccount reassembles the arrays in that order.
 * - Money, readings and consumption are `numeric`. PostgreSQL keeps the scale ('18342.0' reads back
 *   as '18342.0') but not leading zeros or a '+' sign, so each decimal has a `<name>_text` column that
 *   holds the original text only when numeric would not give it back (a gas reading '04512').
 * - Dates are `date`, datetimes `timestamptz`, text is `text` (lengths are the validator's business).
 */

const ACCOUNT_COLUMNS = [
  'billing_name',
  'billing_address1',
  'billing_address2',
  'billing_address3',
  'billing_address4',
  'billing_address5',
  'billing_postcode',
  'account_type',
  'sales_channel',
  'sales_subchannel',
  'transfer_balance',
  'transfer_balance_text',
  'last_billed_to_date',
  'last_payment_review_date',
  'next_bill_due_date',
  'smart_read_frequency',
  'smart_read_cycle_day',
  'communication_preference',
  'document_accessibility',
  'is_imported',
] as const;

/** Child tables, children after their parents (down() drops them in reverse). */
const TABLES = [
  'account_users',
  'account_user_preferences',
  'psr_records',
  'properties',
  'property_administrators',
  'meter_points',
  'agreements',
  'smart_refusal_interests',
  'eac_history',
  'aq_history',
  'meters',
  'registers',
  'transfer_readings',
  'reading_history',
  'prepay_details',
  'ledgers',
  'ledger_transactions',
  'payment_schedules',
  'notes',
  'note_documents',
  'statements',
  'warm_home_discounts',
  'dunning_paths',
  'debts',
  'aged_debts',
  'account_campaigns',
  'account_metadata',
] as const;

type Builder = Knex.CreateTableBuilder;

/**
 * id, account_id (+ position). Only rows the account owns directly carry a foreign key on account_id:
 * a nested row (a reading) belongs to the account through its parent's key already, and a second
 * key check per row is a large share of writing a big account (288 readings + 500 transactions on
 * this machine: 28 ms with both keys, 22 ms with the parent key only, 16 ms with no key checks).
 */
function owned(t: Builder, { ordered = true, nested = false } = {}): void {
  t.bigIncrements('id').primary();
  const accountId = t.bigInteger('account_id').notNullable();
  if (!nested) accountId.references('id').inTable('accounts').onDelete('CASCADE');
  t.index(['account_id']);
  if (ordered) t.integer('position').notNullable();
}

function parent(t: Builder, column: string, table: string, unique = false): void {
  t.bigInteger(column).notNullable().references('id').inTable(table).onDelete('CASCADE');
  if (unique) t.unique([column]);
  else t.index([column]);
}

function decimal(t: Knex.TableBuilder, column: string): void {
  t.decimal(column, null).nullable();
  t.text(`${column}_text`).nullable();
}

function person(t: Builder): void {
  t.text('given_name');
  t.text('family_name');
  t.text('email');
  t.text('mobile');
  t.text('landline');
  t.date('date_of_birth');
  t.text('title');
  t.text('salutation');
}

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('accounts', (t) => {
    t.text('billing_name');
    for (let i = 1; i <= 5; i++) t.text(`billing_address${i}`);
    t.text('billing_postcode');
    t.text('account_type');
    t.text('sales_channel');
    t.text('sales_subchannel');
    decimal(t, 'transfer_balance');
    t.date('last_billed_to_date');
    t.date('last_payment_review_date');
    t.date('next_bill_due_date');
    t.text('smart_read_frequency');
    t.integer('smart_read_cycle_day');
    t.text('communication_preference');
    t.text('document_accessibility');
    t.boolean('is_imported').notNullable().defaultTo(true);
  });

  await knex.schema.createTable('account_users', (t) => {
    owned(t);
    // The platform's customer number, shown to people and carried by account_user.* events.
    t.string('user_number', 16).notNullable().unique();
    person(t);
    t.index(['email']);
  });
  await knex.schema.createTable('account_user_preferences', (t) => {
    owned(t, { ordered: false, nested: true });
    parent(t, 'account_user_id', 'account_users', true);
    t.boolean('opted_into_sms');
    t.boolean('opted_into_recommended');
    t.boolean('opted_into_updates');
    t.boolean('opted_into_third_parties');
    t.boolean('opted_into_offers');
    t.boolean('is_user_psr_consent_obtained');
  });
  await knex.schema.createTable('psr_records', (t) => {
    owned(t, { nested: true });
    parent(t, 'account_user_id', 'account_users');
    t.text('elec_industry_code');
    t.text('gas_industry_code');
    t.date('effective_from');
    // Not in the payload: the needs-code description that account_user.psr_records_updated-v1 carries.
    t.text('description').notNullable().defaultTo('');
  });

  await knex.schema.createTable('properties', (t) => {
    owned(t);
    for (let i = 1; i <= 5; i++) t.text(`supply_address${i}`);
    t.text('supply_postcode');
    t.boolean('is_landlord');
    t.date('customer_at_supply_address_from_date');
    t.index(['supply_postcode']);
  });
  await knex.schema.createTable('property_administrators', (t) => {
    owned(t, { nested: true });
    parent(t, 'property_id', 'properties');
    person(t);
  });

  await knex.schema.createTable('meter_points', (t) => {
    owned(t, { nested: true });
    parent(t, 'property_id', 'properties');
    t.text('identifier').notNullable();
    t.string('supply_type', 16).notNullable();
    t.text('mpid');
    t.text('shipper_mpid');
    t.date('supply_start_date');
    t.integer('profile_class');
    t.text('ssc');
    t.boolean('et_in_progress');
    t.boolean('dr_in_progress');
    // An MPxN appears once per account (validation says so); the same MPxN may belong to other
    // accounts (a later re-import, a change of tenancy), so it is not unique globally.
    t.unique(['account_id', 'identifier']);
    t.index(['identifier']);
  });
  await knex.raw(
    `ALTER TABLE meter_points ADD CONSTRAINT meter_points_supply_type_check CHECK (supply_type IN ('ELECTRICITY','GAS'))`,
  );
  await knex.schema.createTable('agreements', (t) => {
    owned(t, { nested: true });
    parent(t, 'meter_point_id', 'meter_points');
    t.text('tariff_code').notNullable();
    t.date('effective_from').notNullable();
    // Optional in the payload (account/schema.ts): an inclusive end set by the legacy system.
    t.date('effective_to');
    // Derived, exclusive: the next agreement's effective_from on the same meter point; for the last,
    // the day after effective_to when given, else null (open-ended).
    t.date('valid_to');
  });
  await knex.schema.createTable('smart_refusal_interests', (t) => {
    owned(t, { ordered: false, nested: true });
    parent(t, 'meter_point_id', 'meter_points', true);
    t.text('type');
    t.date('date');
    t.text('refusal_reason');
    t.text('source');
  });
  await knex.schema.createTable('eac_history', (t) => {
    owned(t, { nested: true });
    parent(t, 'meter_point_id', 'meter_points');
    t.date('effective_from');
    t.text('tpr');
    decimal(t, 'consumption');
    t.text('source');
  });
  await knex.schema.createTable('aq_history', (t) => {
    owned(t, { nested: true });
    parent(t, 'meter_point_id', 'meter_points');
    t.date('effective_from');
    t.date('effective_to');
    decimal(t, 'consumption');
  });

  await knex.schema.createTable('meters', (t) => {
    owned(t, { nested: true });
    parent(t, 'meter_point_id', 'meter_points');
    t.text('meter_serial_number');
    t.date('installed_on');
    t.integer('gas_number_of_digits');
    t.text('smart_type');
    t.boolean('is_prepay');
    t.index(['meter_serial_number']);
  });
  await knex.schema.createTable('registers', (t) => {
    owned(t, { nested: true });
    parent(t, 'meter_id', 'meters');
    t.text('register_id');
    t.text('tpr');
    t.integer('number_of_digits');
    t.boolean('is_settlement');
  });
  for (const table of ['transfer_readings', 'reading_history']) {
    await knex.schema.createTable(table, (t) => {
      owned(t, { nested: true });
      parent(t, 'meter_id', 'meters');
      t.text('register_id');
      t.date('reading_date');
      decimal(t, 'reading_value');
      t.text('reading_type');
      if (table === 'reading_history') t.boolean('billed');
    });
  }
  await knex.schema.createTable('prepay_details', (t) => {
    owned(t, { ordered: false, nested: true });
    parent(t, 'meter_id', 'meters', true);
    decimal(t, 'debt_balance');
    decimal(t, 'credit_balance');
    t.date('transfer_vend_read_date');
    // gas_debt_repayment_options is a two-field object: flattened, present when either is set.
    decimal(t, 'gas_debt_repayment_weekly_min');
    decimal(t, 'gas_debt_repayment_weekly_max');
  });

  await knex.schema.createTable('ledgers', (t) => {
    owned(t);
    t.date('last_statement_closing_date');
    decimal(t, 'last_statement_balance');
    t.date('last_statement_issue_date');
    decimal(t, 'ledger_balance');
  });
  await knex.schema.createTable('ledger_transactions', (t) => {
    owned(t, { nested: true });
    parent(t, 'ledger_id', 'ledgers');
    // Which of the ledger's two arrays the transaction came from; position counts within that array.
    t.string('statement', 16).notNullable();
    t.text('transaction_id');
    t.date('transaction_date');
    decimal(t, 'amount');
    t.text('type');
    t.text('reason');
    t.text('payment_type');
    // Validation makes transaction ids unique across an account's ledgers; the key keeps it so.
    t.unique(['account_id', 'transaction_id']);
  });
  await knex.raw(
    `ALTER TABLE ledger_transactions ADD CONSTRAINT ledger_transactions_statement_check CHECK (statement IN ('current','historical'))`,
  );
  await knex.schema.createTable('payment_schedules', (t) => {
    owned(t);
    decimal(t, 'amount');
    t.integer('day_of_month');
    t.text('frequency');
    t.text('means');
    t.date('start_date');
    t.boolean('is_debt_repayment_plan');
    t.text('debt_repayment_element');
    t.date('debt_repayment_end_date');
  });

  await knex.schema.createTable('notes', (t) => {
    owned(t);
    t.timestamp('created_at', { useTz: true });
    t.text('body');
  });
  await knex.schema.createTable('note_documents', (t) => {
    owned(t, { nested: true });
    parent(t, 'note_id', 'notes');
    t.text('document_path');
  });
  await knex.schema.createTable('statements', (t) => {
    owned(t);
    t.date('bill_period_from_date');
    t.date('bill_period_to_date');
    t.text('statement_path');
    t.text('statement_id');
  });
  await knex.schema.createTable('warm_home_discounts', (t) => {
    owned(t);
    t.text('tax_year');
    t.text('account_type');
    // The payload's `group`: renamed because GROUP is an SQL keyword that operators would have to quote.
    t.text('discount_group');
  });
  await knex.schema.createTable('dunning_paths', (t) => {
    owned(t, { ordered: false });
    t.unique(['account_id']);
    t.text('path_name').notNullable();
    t.date('start_date');
    // Generated at import; dunning_path_started-v1 carries it.
    t.string('dunning_process_id', 32).notNullable().unique();
  });
  await knex.schema.createTable('debts', (t) => {
    owned(t);
    t.text('agency_name');
    t.date('start_date');
    t.boolean('is_insolvent');
  });
  await knex.schema.createTable('aged_debts', (t) => {
    owned(t, { nested: true });
    parent(t, 'debt_id', 'debts');
    decimal(t, 'debt_amount');
    t.date('due_date');
  });
  await knex.schema.createTable('account_campaigns', (t) => {
    owned(t);
    t.text('slug').notNullable();
    t.text('campaign_note');
    t.unique(['account_id', 'slug']);
    t.index(['slug']);
  });
  await knex.schema.createTable('account_metadata', (t) => {
    owned(t);
    t.text('key').notNullable();
    t.jsonb('value');
    t.unique(['account_id', 'key']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [...TABLES].reverse()) await knex.schema.dropTableIfExists(table);
  await knex.schema.alterTable('accounts', (t) => {
    t.dropColumns(...ACCOUNT_COLUMNS);
  });
}
