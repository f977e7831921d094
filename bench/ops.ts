/**
 * `npm run bench:ops`: the queries of the operations page at the size of a real book.
 *
 * In a database of its own (BENCH_OPS_DB, default di_bench_ops; dropped at the end unless
 * BENCH_KEEP=1) it inserts 1,000,000 generated import processes of one supplier directly
 * (INSERT ... SELECT generate_series, triggers off, then ops_rebuild_rollups() — the migration's
 * own backfill), plus a small second supplier and an outbox with a backlog, then times every
 * query the page runs (p50/p95 of BENCH_OPS_RUNS runs) and the cost the roll-up triggers add to
 * a status change. Figures go to bench/results/ops.json (bench/RESULTS.md via bench:results).
 */
import pg from 'pg';
import { createDb } from '../db/knex';
import { findProcess, importsWithError } from '../imports/store';
import { outboxBacklog } from '../events/outbox';
import * as store from '../ops/store';
import { buildSummary, latencyBinMinutes } from '../ops/summary';
import { writeResult } from './lib/stack';

const ROWS = Number(process.env.BENCH_OPS_ROWS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_OPS_RUNS ?? 40);
const DB_NAME = process.env.BENCH_OPS_DB ?? 'di_bench_ops';
const BIG = 'BIG_ENERGY';
const SERVER = (() => {
  const u = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  u.pathname = '/postgres';
  return u.toString();
})();
const dbUrl = (() => {
  const u = new URL(SERVER);
  u.pathname = `/${DB_NAME}`;
  return u.toString();
})();

async function admin(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: SERVER });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

const pct = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
const ms = (n: number) => Math.round(n * 10) / 10;

async function time(name: string, fn: () => Promise<unknown>): Promise<Record<string, string | number>> {
  await fn(); // warm: plans cached, pages in memory, as on a page that refreshes every 5 s
  const runs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = process.hrtime.bigint();
    await fn();
    runs.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  runs.sort((a, b) => a - b);
  const row = { query: name, 'p50 ms': ms(pct(runs, 0.5)), 'p95 ms': ms(pct(runs, 0.95)), 'max ms': ms(runs[runs.length - 1]!) };
  console.log(`${name.padEnd(58)} p50 ${String(row['p50 ms']).padStart(7)} ms   p95 ${String(row['p95 ms']).padStart(7)} ms`);
  return row;
}

async function main(): Promise<void> {
  console.log(`bench:ops — ${ROWS.toLocaleString('en')} import processes of ${BIG} in database ${DB_NAME}`);
  await admin(`DROP DATABASE IF EXISTS "${DB_NAME}" WITH (FORCE)`);
  await admin(`CREATE DATABASE "${DB_NAME}"`);
  const db = createDb(dbUrl, 4);
  try {
    await db.migrate.latest();
    await db('import_suppliers').insert([{ code: BIG }, { code: 'SMALL_ENERGY' }]);

    const t0 = Date.now();
    // One statement per table, triggers off (session_replication_role), then the backfill the
    // migration itself runs: the fastest honest way to a million rows with their roll-ups.
    await db.transaction(async (trx) => {
      await trx.raw(`SET LOCAL session_replication_role = replica`);
      await trx.raw(
        `INSERT INTO import_processes (import_supplier, external_account_number, status, payload, schedule_window_start,
                                       schedule_window_end, workflow_id, latest_event, latest_error, kraken_identifier,
                                       created_at, modified_at, run_started_at)
         SELECT s.supplier, s.ext, s.status, '{}'::jsonb, s.created, s.created + interval '4 days',
                'account-import:' || s.supplier || ':' || s.ext,
                jsonb_build_object('event', 'EVENT_ACCOUNT_IMPORT_PROCESS_CREATED', 'occurred_at', s.modified, 'data', null),
                CASE WHEN s.status IN ('ERRORED', 'DRY_RUN_ERRORED')
                     THEN jsonb_build_object('code', (ARRAY['import_process_failed_validation', 'account_creation_failed',
                          'import_process_infrastructure_unavailable', 'tariff_code_not_found', 'meter_point_not_found',
                          'import_process_superseded'])[1 + (s.g % 6)], 'detail', 'generated', 'domain', 'import_process') END,
                CASE WHEN s.status = 'PROCESSED' THEN 'A-' || s.g END,
                s.created, s.modified, s.created
           FROM (
             SELECT g, CASE WHEN g <= ? THEN ? ELSE 'SMALL_ENERGY' END AS supplier, 'LEGACY-' || lpad(g::text, 8, '0') AS ext,
                    CASE WHEN g % 100 < 72 THEN 'PROCESSED' WHEN g % 100 < 84 THEN 'PENDING' WHEN g % 100 < 88 THEN 'IN_PROGRESS'
                         WHEN g % 100 < 95 THEN 'ERRORED' WHEN g % 100 < 97 THEN 'DRY_RUN_SUCCEEDED' WHEN g % 100 < 98 THEN 'DRY_RUN_ERRORED'
                         ELSE 'CANCELLED' END AS status,
                    now() - make_interval(secs => (g % 86400)) - interval '5 seconds' AS created,
                    now() - make_interval(secs => (g % 86400)) + make_interval(secs => 1 + (g % 97) / 10.0) - interval '5 seconds' AS modified
               FROM generate_series(1, ?) g
           ) s`,
        [ROWS, BIG, ROWS + 20_000],
      );
      // An outbox of 200,000 events, the last 2,000 not yet published (a relay a little behind).
      await trx.raw(
        `INSERT INTO outbox (event_id, event_type, event_version, subject, ordering_key, envelope, created_at)
         SELECT gen_random_uuid(), 'data_import.import_process.complete', 'v1', 'events.x', 'k' || g, '{}'::jsonb,
                now() - make_interval(secs => (200000 - g) / 10.0)
           FROM generate_series(1, 200000) g`,
      );
      // Unpublished = a row in outbox_pending (migration 0010).
      await trx.raw(`INSERT INTO outbox_pending (seq) SELECT seq FROM outbox ORDER BY seq DESC LIMIT 2000`);
    });
    const loadedS = (Date.now() - t0) / 1000;
    const t1 = Date.now();
    await db.raw('SELECT ops_rebuild_rollups()');
    const rebuildS = (Date.now() - t1) / 1000;
    await db.raw('VACUUM ANALYZE');
    console.log(`loaded in ${loadedS.toFixed(1)} s, roll-ups rebuilt in ${rebuildS.toFixed(1)} s`);

    const now = await store.databaseNow(db);
    const since = (h: number) => new Date(Math.floor(now.getTime() / 60_000) * 60_000 - h * 3600_000);
    const temporal = { uiUrl: 'http://127.0.0.1:8233', namespace: 'default' };
    const code = 'import_process_failed_validation';
    const firstPage = await importsWithError(db, { supplier: BIG, code, limit: 101 });
    const after: [string, string] = [BIG, firstPage[firstPage.length - 1]!.externalAccountNumber];
    const rows: Record<string, string | number>[] = [];
    for (const supplier of [BIG, null]) {
      const who = supplier ? 'one supplier' : 'all suppliers';
      rows.push(await time(`counts by status / error code / kind (${who})`, () => store.rollupCounts(db, supplier)));
      rows.push(await time(`PROCESSED per minute, 6 h (${who})`, () => store.processedPerMinute(db, supplier, since(6))));
      rows.push(await time(`PROCESSED per minute, 72 h (${who})`, () => store.processedPerMinute(db, supplier, since(72))));
      rows.push(await time(`latency histograms, 6 h (${who})`, () => store.latencyHistograms(db, supplier, since(6), latencyBinMinutes(6))));
      rows.push(await time(`latency histograms, 72 h (${who})`, () => store.latencyHistograms(db, supplier, since(72), latencyBinMinutes(72))));
      rows.push(await time(`affected accounts of an error code, first page (${who})`, () => importsWithError(db, { supplier, code, limit: 101 })));
      rows.push(await time(`affected accounts of an error code, next page (${who})`, () => importsWithError(db, { supplier, code, after, limit: 101 })));
      rows.push(await time(`whole summary, 6 h (${who})`, () => buildSummary(db, { supplier, hours: 6, temporal })));
      rows.push(await time(`whole summary, 72 h (${who})`, () => buildSummary(db, { supplier, hours: 72, temporal })));
    }
    rows.push(await time('outbox backlog and relay lag (2,000 of 200,000 unpublished)', () => outboxBacklog(db)));
    rows.push(await time('status record of one import', () => findProcess(db, BIG, 'LEGACY-00500000')));

    // What the triggers add to a status change: 2,000 transitions PENDING → PROCESSED, each in a
    // transaction of its own as the worker makes them, with and without the triggers (CPU cost:
    // synchronous_commit off, so the WAL flush does not drown it).
    const transitionCost = async (triggers: boolean, offset: number) => {
      const ids = (await db('import_processes').where({ import_supplier: BIG, status: 'PENDING' }).orderBy('id').offset(offset).limit(2000).pluck('id')) as string[];
      const started = process.hrtime.bigint();
      for (const id of ids) {
        await db.transaction(async (trx) => {
          // Without waiting for the WAL flush, which costs ~10 ms here and hides the rest.
          await trx.raw('SET LOCAL synchronous_commit = off');
          if (!triggers) await trx.raw('SET LOCAL session_replication_role = replica');
          await trx.raw(`UPDATE import_processes SET status = 'PROCESSED', modified_at = now(), kraken_identifier = 'B-' || id WHERE id = ?`, [id]);
        });
      }
      return Number(process.hrtime.bigint() - started) / 1e3 / ids.length;
    };
    const without = await transitionCost(false, 0);
    const withTriggers = await transitionCost(true, 2000);
    console.log(`a status change in its own transaction: ${without.toFixed(1)} µs without the roll-up triggers, ${withTriggers.toFixed(1)} µs with them`);

    const file = writeResult('ops', {
      rows: ROWS,
      runs: RUNS,
      loadSeconds: Math.round(loadedS),
      rebuildSeconds: Math.round(rebuildS),
      queries: rows,
      transitionMicros: { withoutTriggers: Math.round(without), withTriggers: Math.round(withTriggers) },
    });
    console.log(`written ${file}`);
  } finally {
    await db.destroy();
    if (process.env.BENCH_KEEP !== '1') await admin(`DROP DATABASE IF EXISTS "${DB_NAME}" WITH (FORCE)`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
