import type { Knex } from 'knex';

/**
 * Organisations, their import-supplier grants, API keys (hash only) and refresh tokens
 * (rotated on use; a family shares the id of its first token so that reuse revokes them all).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('organisations', (t) => {
    t.string('name', 100).primary();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('organisation_suppliers', (t) => {
    t.string('organisation', 100).notNullable().references('name').inTable('organisations').onDelete('CASCADE');
    t.string('import_supplier', 64).notNullable().references('code').inTable('import_suppliers').onDelete('CASCADE');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['organisation', 'import_supplier']);
  });

  await knex.schema.createTable('api_keys', (t) => {
    t.string('id', 40).primary();
    t.string('organisation', 100).notNullable().references('name').inTable('organisations').onDelete('CASCADE');
    t.string('label', 200).nullable();
    // The first characters of the key, for operators to recognise it; never enough to use it.
    t.string('prefix', 16).notNullable();
    // SHA-256 hex of the key: the key itself is shown once and never stored.
    t.string('key_hash', 64).notNullable().unique();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('revoked_at', { useTz: true }).nullable();
    t.timestamp('last_used_at', { useTz: true }).nullable();
    t.index(['organisation']);
  });

  await knex.schema.createTable('refresh_tokens', (t) => {
    t.uuid('jti').primary();
    t.string('token_hash', 64).notNullable().unique();
    t.string('key_id', 40).notNullable().references('id').inTable('api_keys').onDelete('CASCADE');
    t.uuid('family').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('used_at', { useTz: true }).nullable();
    t.uuid('replaced_by').nullable();
    t.timestamp('revoked_at', { useTz: true }).nullable();
    t.index(['family']);
    t.index(['expires_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('refresh_tokens');
  await knex.schema.dropTableIfExists('api_keys');
  await knex.schema.dropTableIfExists('organisation_suppliers');
  await knex.schema.dropTableIfExists('organisations');
}
