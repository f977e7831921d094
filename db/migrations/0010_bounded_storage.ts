import type { Knex } from 'knex';

/**
 * Bounded storage (docs/operations.md, "Retention and storage per account").
 *
 * Outbox: publication is recorded by deleting a row of a small queue table, not by updating the
 * event row. `outbox` becomes insert-only (no dead tuple per publication; retention deletes old rows
 * in seq order), and `outbox_pending` holds one narrow row per event not yet acknowledged by
 * JetStream: its dead tuples are few bytes each and the table stays the size of the backlog, so
 * autovacuum keeps up (bench/outboxBloat.ts measures both designs). The foreign key (no cascade)
 * means an unpublished event can never be pruned.
 *
 * Claim check: the stored payload of a PROCESSED import may be dropped after its retention
 * (the account tables hold the data; `payload_pruned_at` says when it went).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('outbox_pending', (t) => {
    t.bigInteger('seq').primary().references('seq').inTable('outbox');
    t.integer('attempts').notNullable().defaultTo(0);
    t.text('last_error').nullable();
  });
  await knex.raw(
    'INSERT INTO outbox_pending (seq, attempts, last_error) SELECT seq, attempts, last_error FROM outbox WHERE published_at IS NULL ORDER BY seq',
  );
  await knex.raw('DROP INDEX IF EXISTS outbox_unpublished_idx');
  await knex.schema.alterTable('outbox', (t) => {
    t.dropColumn('published_at');
    t.dropColumn('attempts');
    t.dropColumn('last_error');
  });
  // The queue churns (one insert and one delete per event): vacuum it after a few hundred dead
  // rows rather than at 20 % of a table whose size swings with the backlog.
  await knex.raw('ALTER TABLE outbox_pending SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000)');

  await knex.schema.alterTable('import_processes', (t) => {
    t.timestamp('payload_pruned_at', { useTz: true }).nullable();
  });
  await knex.raw('ALTER TABLE import_processes ALTER COLUMN payload DROP NOT NULL');
  // Only PROCESSED imports that still hold their payload: small once retention runs.
  await knex.raw(
    "CREATE INDEX import_processes_payload_held_idx ON import_processes (modified_at) WHERE status = 'PROCESSED' AND payload IS NOT NULL",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS import_processes_payload_held_idx');
  await knex.raw("UPDATE import_processes SET payload = '{}'::jsonb WHERE payload IS NULL");
  await knex.raw('ALTER TABLE import_processes ALTER COLUMN payload SET NOT NULL');
  await knex.schema.alterTable('import_processes', (t) => t.dropColumn('payload_pruned_at'));
  await knex.schema.alterTable('outbox', (t) => {
    t.timestamp('published_at', { useTz: true }).nullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.text('last_error').nullable();
  });
  await knex.raw('UPDATE outbox SET published_at = now() WHERE seq NOT IN (SELECT seq FROM outbox_pending)');
  await knex.raw('UPDATE outbox o SET attempts = p.attempts, last_error = p.last_error FROM outbox_pending p WHERE p.seq = o.seq');
  await knex.raw('CREATE INDEX outbox_unpublished_idx ON outbox (seq) WHERE published_at IS NULL');
  await knex.schema.dropTable('outbox_pending');
}
