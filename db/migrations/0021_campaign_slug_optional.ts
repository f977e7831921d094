import type { Knex } from 'knex';

/**
 * A campaign of an account is named by its slug (this service's reference data) or by the
 * platform's `campaign_name`, exactly one of them (docs/spec/RULES.md): `account_campaigns.slug`
 * may now be null. Its unique (account_id, slug) stays: PostgreSQL lets nulls repeat.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE account_campaigns ALTER COLUMN slug DROP NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DELETE FROM account_campaigns WHERE slug IS NULL');
  await knex.raw('ALTER TABLE account_campaigns ALTER COLUMN slug SET NOT NULL');
}
