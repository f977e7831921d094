import type { Knex } from 'knex';

/**
 * The fingerprint of the validation the API ran on a stored payload (account/fingerprint.ts):
 * the worker re-validates the payload only when its own fingerprint differs (rules, reference
 * data, supplier configuration or London's date changed). NULL: always re-validated.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE import_processes ADD COLUMN validation_fingerprint text');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE import_processes DROP COLUMN validation_fingerprint');
}
