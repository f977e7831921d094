import type { Knex } from 'knex';

/**
 * Meter points marked for registration with the industry (send-registration-flows). One row per
 * meter point, ever: the unique key is what guarantees a meter point is never marked twice.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('meter_point_registrations', (t) => {
    t.bigIncrements('id').primary();
    // Cascade: deleting an account (db/stores/accountStore.ts deleteAccount) deletes its meter
    // points, and a mark without its meter point means nothing.
    t.bigInteger('meter_point_id').notNullable().unique().references('id').inTable('meter_points').onDelete('CASCADE');
    t.bigInteger('account_id').notNullable();
    t.string('account_number', 32).notNullable();
    t.string('import_supplier', 64).notNullable();
    t.string('external_account_number', 128).notNullable();
    t.text('mpxn').notNullable();
    t.string('supply_type', 16).notNullable();
    t.date('supply_start_date').notNullable();
    t.string('supplier_mpid', 8).notNullable();
    t.string('status', 16).notNullable().defaultTo('MARKED');
    t.string('requested_by', 200).notNullable();
    t.timestamp('requested_at', { useTz: true }).notNullable();
    t.uuid('event_id').notNullable();
    t.index(['account_id']);
    // Operators list by supplier and status (data-import registrations list).
    t.index(['import_supplier', 'status']);
    t.index(['status']);
  });
  // MARKED is written here; the later states belong to the downstream registration process.
  await knex.raw(
    `ALTER TABLE meter_point_registrations ADD CONSTRAINT meter_point_registrations_status_check CHECK (status IN ('MARKED','SENT','CONFIRMED','REJECTED'))`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('meter_point_registrations');
}
