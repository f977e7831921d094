import type { Knex } from 'knex';

/**
 * Bank details masked on read-back (issue 47 item 5): an API key may see them in clear only when
 * it was given the permission (`data-import api-keys issue --reveal-bank-details`, or `api-keys
 * permit`), read with the key's grant on every request (auth/store.ts findKeyGrant).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE api_keys ADD COLUMN reveal_bank_details boolean NOT NULL DEFAULT false');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE api_keys DROP COLUMN reveal_bank_details');
}
