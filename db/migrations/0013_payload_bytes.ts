import type { Knex } from 'knex';

/**
 * The size in bytes of a run's stored payload as the API serialised it. The worker reads a payload
 * above a threshold only once the process's payload budget has room for it (lib/payloadBudget.ts),
 * so a capped heap survives many very large accounts at once. NULL (runs stored before this
 * migration): the size is unknown, and the worker treats the payload as the largest allowed.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE import_processes ADD COLUMN payload_bytes integer');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE import_processes DROP COLUMN payload_bytes');
}
