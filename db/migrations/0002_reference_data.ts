import type { Knex } from 'knex';
import { DEFAULT_REFERENCE_DATA_ROWS } from '../../account/referenceData';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('reference_data', (t) => {
    t.bigIncrements('id').primary();
    t.string('kind', 32).notNullable();
    t.string('code', 128).notNullable();
    t.string('fuel', 16).nullable();
    t.text('description').nullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // Validators poll max(modified_at) and count(*) to notice operator changes.
    t.timestamp('modified_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['kind']);
  });
  // fuel is NULL for every kind but tariff codes; NULLS NOT DISTINCT (PostgreSQL 15+) would do,
  // but an expression index works on every supported version and is what upserts target.
  await knex.raw(`CREATE UNIQUE INDEX reference_data_kind_code_fuel_uq ON reference_data (kind, code, (COALESCE(fuel, '')))`);
  await knex.raw(
    `ALTER TABLE reference_data ADD CONSTRAINT reference_data_kind_check CHECK (kind IN ('tariff_code','tpr','market_participant','psr_needs_code','campaign','dunning_path','reference_namespace','debt_collection_agency'))`,
  );
  await knex.raw(`ALTER TABLE reference_data ADD CONSTRAINT reference_data_fuel_check CHECK (fuel IS NULL OR fuel IN ('ELECTRICITY','GAS'))`);

  await knex.schema.createTable('account_references', (t) => {
    t.bigIncrements('id').primary();
    t.string('namespace', 64).notNullable();
    t.string('value', 255).notNullable();
    t.string('account_number', 32).nullable();
    t.string('import_supplier', 64).notNullable();
    t.string('external_account_number', 128).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['namespace', 'value']);
    t.index(['import_supplier', 'external_account_number']);
  });

  await knex('reference_data').insert(
    DEFAULT_REFERENCE_DATA_ROWS.map((r) => ({ kind: r.kind, code: r.code, fuel: r.fuel ?? null, description: r.description ?? null })),
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('account_references');
  await knex.schema.dropTableIfExists('reference_data');
}
