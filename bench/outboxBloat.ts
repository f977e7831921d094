/**
 * How much recording publication costs the database: `npm run bench:outbox-bloat`.
 *
 * Two designs under the same sustained load (writers commit one import's 12 events per
 * transaction while a relay loop takes the oldest pending batch and records it published):
 * - `update`: the design before migration 0010: one `outbox` table, `published_at` set by UPDATE,
 *   a partial index on unpublished rows. Every publication leaves a dead tuple of the whole event
 *   row and new index entries (the partial index's predicate column changes, so no HOT update).
 * - `queue`: the design of migration 0010: `outbox` insert-only, publication = DELETE of a narrow
 *   row in `outbox_pending`.
 * No NATS: the relay's publish is left out so only the database's side is compared. Each design
 * gets its own fresh schema in one scratch database (BENCH_DATABASE, default data_import_bench_bloat,
 * dropped at the end), with autovacuum as the server runs it. Prints, before and after the load and
 * after a VACUUM of the churned table (timed: the work autovacuum must do to keep up): rows, dead
 * tuples, table + index + TOAST size, autovacuum runs; and the relay's time per event.
 * Sizes: BLOAT_TRANSACTIONS (default 20000 imports = 240,000 events), BLOAT_WRITERS (4).
 */
import pg from 'pg';
import { percentile, writeResult } from './lib/stack';

const BASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB = process.env.BENCH_DATABASE ?? 'data_import_bench_bloat';
const TRANSACTIONS = Number(process.env.BLOAT_TRANSACTIONS ?? 20_000);
const WRITERS = Number(process.env.BLOAT_WRITERS ?? 4);
const EVENTS_PER_TX = 12;
const RELAY_BATCH = 200;
/**
 * Vacuum of the churned table every this many ms during the load (0: none, leave it to the
 * server's autovacuum). On by default because a shared development server may run with
 * autovacuum off: this plays its part the same way for both designs, and its time is the cost.
 */
const VACUUM_EVERY_MS = Number(process.env.BLOAT_VACUUM_EVERY_MS ?? 5000);
const CHURNED: Record<'update' | 'queue', string> = { update: 'outbox', queue: 'outbox_pending' };

const urlFor = (db: string) => {
  const u = new URL(BASE_URL);
  u.pathname = `/${db}`;
  return u.toString();
};

type Design = 'update' | 'queue';

const DDL: Record<Design, string> = {
  update: `
    CREATE TABLE outbox (seq bigserial PRIMARY KEY, event_id uuid NOT NULL UNIQUE, event_type varchar(200) NOT NULL,
      event_version varchar(16) NOT NULL, subject varchar(300) NOT NULL, ordering_key varchar(300) NOT NULL,
      envelope jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now(), published_at timestamptz,
      attempts integer NOT NULL DEFAULT 0, last_error text);
    CREATE INDEX outbox_unpublished_idx ON outbox (seq) WHERE published_at IS NULL;`,
  queue: `
    CREATE TABLE outbox (seq bigserial PRIMARY KEY, event_id uuid NOT NULL UNIQUE, event_type varchar(200) NOT NULL,
      event_version varchar(16) NOT NULL, subject varchar(300) NOT NULL, ordering_key varchar(300) NOT NULL,
      envelope jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
    CREATE TABLE outbox_pending (seq bigint PRIMARY KEY REFERENCES outbox (seq), attempts integer NOT NULL DEFAULT 0, last_error text);
    ALTER TABLE outbox_pending SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000);`,
};

const INSERT: Record<Design, string> = {
  update: `INSERT INTO outbox (event_id, event_type, event_version, subject, ordering_key, envelope)
           SELECT gen_random_uuid(), 'account.created', 'v1', 'events.account.created.v1', $1, $2::jsonb FROM generate_series(1, ${EVENTS_PER_TX})`,
  queue: `WITH ins AS (INSERT INTO outbox (event_id, event_type, event_version, subject, ordering_key, envelope)
           SELECT gen_random_uuid(), 'account.created', 'v1', 'events.account.created.v1', $1, $2::jsonb FROM generate_series(1, ${EVENTS_PER_TX}) RETURNING seq)
          INSERT INTO outbox_pending (seq) SELECT seq FROM ins ORDER BY seq`,
};
const FETCH: Record<Design, string> = {
  update: `SELECT seq, event_id, subject, envelope FROM outbox WHERE published_at IS NULL ORDER BY seq LIMIT ${RELAY_BATCH}`,
  queue: `SELECT o.seq, o.event_id, o.subject, o.envelope FROM outbox_pending p JOIN outbox o ON o.seq = p.seq ORDER BY p.seq LIMIT ${RELAY_BATCH}`,
};
const MARK: Record<Design, string> = {
  update: `UPDATE outbox SET published_at = now(), attempts = attempts + 1, last_error = NULL WHERE seq = ANY($1::bigint[])`,
  queue: `DELETE FROM outbox_pending WHERE seq = ANY($1::bigint[])`,
};

// A realistic envelope (~700 bytes, an account.created-v1 of the catalogue).
const envelope = JSON.stringify({
  id: '00000000-0000-0000-0000-000000000000',
  type: 'account.created',
  version: 'v1',
  occurred_at: new Date().toISOString(),
  source: 'data-import',
  data: {
    account_number: 'A-1234ABCD',
    is_imported: true,
    import_supplier: 'DEMO_ENERGY',
    external_account_number: 'EXT-000000001',
    brand_code: 'DEMO',
    billing_name: 'Ms Example Customer',
    billing_address: { line_1: '1 Example Street', line_2: 'Flat 2', town: 'Exampleton', county: 'Exampleshire', postcode: 'EX1 2AB', country: 'GB' },
    customers: [{ given_name: 'Example', family_name: 'Customer', email: 'example.customer@example.com', mobile: '+447700900000' }],
    created_at: new Date().toISOString(),
  },
});

async function stats(c: pg.Client) {
  await c.query('SELECT pg_stat_force_next_flush()').catch(() => undefined);
  const r = await c.query(`
    SELECT relname, n_live_tup::int AS live, n_dead_tup::int AS dead, autovacuum_count::int AS autovacuums,
           pg_total_relation_size(relid)::bigint AS bytes
      FROM pg_stat_user_tables WHERE relname IN ('outbox', 'outbox_pending') ORDER BY relname`);
  return r.rows.map((x) => ({ table: x.relname as string, live: x.live, dead: x.dead, autovacuums: x.autovacuums, MiB: +(Number(x.bytes) / 1048576).toFixed(1) }));
}

async function runDesign(design: Design) {
  const admin = new pg.Client({ connectionString: urlFor(DB) });
  await admin.connect();
  await admin.query('DROP TABLE IF EXISTS outbox_pending, outbox');
  await admin.query(DDL[design]);
  const before = await stats(admin);

  let written = 0;
  let writersDone = false;
  const writer = async (w: number) => {
    const c = new pg.Client({ connectionString: urlFor(DB) });
    await c.connect();
    for (let i = w; i < TRANSACTIONS; i += WRITERS) {
      await c.query(INSERT[design], [`import-${i}`, envelope]);
      written++;
    }
    await c.end();
  };
  const relay = new pg.Client({ connectionString: urlFor(DB) });
  await relay.connect();
  const markMs: number[] = [];
  let published = 0;
  const t0 = Date.now();
  const writers = Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w))).then(() => (writersDone = true));
  let vacuumDuringMs = 0;
  let vacuums = 0;
  let relayDone = false;
  const vacuumer = (async () => {
    if (VACUUM_EVERY_MS <= 0) return;
    const c = new pg.Client({ connectionString: urlFor(DB) });
    await c.connect();
    while (!relayDone) {
      await new Promise((r) => setTimeout(r, VACUUM_EVERY_MS));
      const v = performance.now();
      await c.query(`VACUUM ${CHURNED[design]}`);
      vacuumDuringMs += performance.now() - v;
      vacuums++;
    }
    await c.end();
  })();
  for (;;) {
    const s = process.hrtime.bigint();
    const rows = (await relay.query(FETCH[design])).rows;
    if (rows.length === 0) {
      if (writersDone) break;
      await new Promise((r) => setTimeout(r, 5));
      continue;
    }
    await relay.query(MARK[design], [rows.map((r) => r.seq)]);
    markMs.push(Number(process.hrtime.bigint() - s) / 1e6 / rows.length);
    published += rows.length;
  }
  await writers;
  const seconds = (Date.now() - t0) / 1000;
  relayDone = true;
  await vacuumer;
  // Give autovacuum a moment, as a sustained migration would.
  await new Promise((r) => setTimeout(r, 5000));
  const after = await stats(admin);
  // What vacuum has to do to reclaim the dead tuples (the work autovacuum would do, measured).
  const v0 = performance.now();
  await admin.query(`VACUUM ${CHURNED[design]}`);
  const vacuumMs = Math.round(performance.now() - v0);
  const afterVacuum = await stats(admin);
  await relay.end();
  await admin.end();
  markMs.sort((a, b) => a - b);
  return {
    design,
    transactions: written,
    events: published,
    seconds: +seconds.toFixed(1),
    fetchAndMarkUsPerEventMedian: +(percentile(markMs, 50) * 1000).toFixed(1),
    vacuumMs,
    vacuumsDuringLoad: vacuums,
    vacuumDuringLoadMs: Math.round(vacuumDuringMs),
    before,
    after,
    afterVacuum,
  };
}

async function main() {
  const root = new pg.Client({ connectionString: BASE_URL });
  await root.connect();
  await root.query(`DROP DATABASE IF EXISTS ${DB}`);
  await root.query(`CREATE DATABASE ${DB}`);
  const autovacuum = (await root.query('SHOW autovacuum')).rows[0].autovacuum;
  console.log(`autovacuum on this server: ${autovacuum}`);
  try {
    const results = [];
    // BLOAT_ORDER=queue,update to check the order (a busy machine) does not decide the comparison.
    for (const design of (process.env.BLOAT_ORDER ?? 'update,queue').split(',') as Design[]) {
      const r = await runDesign(design);
      results.push(r);
      console.log(`\n${design}: ${r.events} events in ${r.seconds} s, relay fetch+record ${r.fetchAndMarkUsPerEventMedian} µs/event (median), ${r.vacuumsDuringLoad} VACUUMs of the churned table during the load took ${r.vacuumDuringLoadMs} ms, the final one ${r.vacuumMs} ms`);
      console.table([
        ...r.before.map((x) => ({ when: 'before', ...x })),
        ...r.after.map((x) => ({ when: 'after load', ...x })),
        ...r.afterVacuum.map((x) => ({ when: 'after VACUUM', ...x })),
      ]);
    }
    console.log(`\nwritten to ${writeResult('outbox-bloat', { transactions: TRANSACTIONS, writers: WRITERS, autovacuum, results })}`);
  } finally {
    await root.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
    await root.end();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
