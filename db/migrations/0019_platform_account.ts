import type { Knex } from 'knex';

/**
 * The platform's Account, more of it (issue 35; account/platformAccount.json describes it):
 * - a PSR record's `effective_from` as sent: the platform sends a date-time, the spec a date.
 *   `effective_from_sent` holds the field as it came (read back); `effective_from` keeps its day,
 *   queryable as before. Existing rows get their day as the text sent (they could only be dates).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('psr_records', (t) => {
    t.text('effective_from_sent');
  });
  await knex.raw(`UPDATE psr_records SET effective_from_sent = to_char(effective_from, 'YYYY-MM-DD')`);
  await knex.raw('ALTER TABLE psr_records ALTER COLUMN effective_from_sent SET NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('psr_records', (t) => {
    t.dropColumn('effective_from_sent');
  });
}
