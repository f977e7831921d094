import type { Knex } from 'knex';

/**
 * The platform's Account, more of it (issue 35; account/platformAccount.json describes it). New
 * columns only, on tables the digest's forgetting triggers of migration 0016 already cover:
 * - a PSR record's `effective_from` as sent: the platform sends a date-time, the spec a date.
 *   `effective_from_sent` holds the field as it came (read back); `effective_from` keeps its day,
 *   queryable as before. Existing rows get their day as the text sent (they could only be dates).
 * - area 2, the Priority Services Register and vulnerability: a PSR record's `effective_to` (as
 *   sent, and its day), the payload's `description` (`given_description`: `description` already
 *   holds the needs code's description from reference data, which the events carry) and
 *   `additional_information`; the customer's `partner_password` (the PSR password, a secret:
 *   docs/api.md), `unable_to_read_meters`, `deceased`, `role`, and `account_roles` /
 *   `portfolio_roles` (JSON arrays of role names, queryable with `?`).
 * - area 3, schedule detail: a payment schedule's `paid_by` (FUEL_DIRECT), `end_date`, `trigger`,
 *   `ledger_code`, `balance_threshold` (a decimal: numeric and its text as sent), `delay_days`,
 *   `delay_strategy`, `exempt_from_payment_adequacy`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('psr_records', (t) => {
    t.text('effective_from_sent');
    t.text('effective_to_sent');
    t.date('effective_to');
    t.text('given_description');
    t.text('additional_information');
  });
  await knex.raw(`UPDATE psr_records SET effective_from_sent = to_char(effective_from, 'YYYY-MM-DD')`);
  await knex.raw('ALTER TABLE psr_records ALTER COLUMN effective_from_sent SET NOT NULL');
  await knex.schema.alterTable('account_user_preferences', (t) => {
    t.text('partner_password');
  });
  await knex.schema.alterTable('account_users', (t) => {
    t.boolean('unable_to_read_meters');
    t.text('deceased');
    t.text('role');
    t.jsonb('account_roles');
    t.jsonb('portfolio_roles');
  });
  await knex.schema.alterTable('payment_schedules', (t) => {
    t.text('paid_by');
    t.date('end_date');
    t.text('trigger');
    t.text('ledger_code');
    t.decimal('balance_threshold', null);
    t.text('balance_threshold_text');
    t.integer('delay_days');
    t.text('delay_strategy');
    t.boolean('exempt_from_payment_adequacy');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('payment_schedules', (t) => {
    for (const c of ['paid_by', 'end_date', 'trigger', 'ledger_code', 'balance_threshold', 'balance_threshold_text', 'delay_days', 'delay_strategy', 'exempt_from_payment_adequacy']) t.dropColumn(c);
  });
  await knex.schema.alterTable('account_users', (t) => {
    for (const c of ['unable_to_read_meters', 'deceased', 'role', 'account_roles', 'portfolio_roles']) t.dropColumn(c);
  });
  await knex.schema.alterTable('account_user_preferences', (t) => {
    t.dropColumn('partner_password');
  });
  await knex.schema.alterTable('psr_records', (t) => {
    for (const c of ['effective_from_sent', 'effective_to_sent', 'effective_to', 'given_description', 'additional_information']) t.dropColumn(c);
  });
}
