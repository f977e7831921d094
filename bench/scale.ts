/**
 * Growth benchmark (docs/scaling.md): does the millionth account cost what the first did?
 *
 *   npm run bench:scale                              (sizes 0, 50,000 and 250,000: about half an hour)
 *   SCALE_SIZES=0,5000,20000 npm run bench:scale     (a quick run)
 *
 * The service runs as separate processes (bench/lib/stack.ts). For each size in SCALE_SIZES the
 * database is first bulk-loaded up to that many imported accounts, not through HTTP. The first
 * SCALE_SEED_COUNT (2,000) go through the store's own insertAccount in batched transactions, with
 * the PROCESSED import record and its stored payload and the account's events in the outbox as
 * published. Every later account is a copy of one of those seeds made inside PostgreSQL: one
 * INSERT … SELECT per table from a snapshot of the seeds' rows × generate_series, with its own
 * ids, parent links, account number, external account number, workflow id, event ids and
 * per-copy values for the keys that are unique per account (copyAccounts). Then,
 * at that size:
 * - import throughput and CPU per account: `data-import migrate` of SCALE_E2E_COUNT new typical
 *   accounts (like bench:e2e), CPU of every process divided by the accounts;
 * - validate latency (p50/p95) of new accounts whose references and meter points are checked
 *   against all stored ones;
 * - status GET p95 of random stored accounts;
 * - the relay's lag (write → JetStream ack; the worker's data_import_relay_lag_seconds);
 * - bytes per account by table (pg_total_relation_size): of the rows added since the previous
 *   size before retention, and of the whole database after a retention pass (retention 0: every
 *   published event and PROCESSED payload goes) and a plain VACUUM — what a long migration
 *   settles at, since retention frees space that new rows reuse.
 * Results: bench/results/scale.json; `npm run bench:results` writes them into bench/RESULTS.md
 * with the extrapolation to 1.5 million accounts.
 */
import { createDb } from '../db/knex';
import { insertAccount, newAccountNumber } from '../db/stores/accountStore';
import { latestEventFor } from '../imports/store';
import { generateBook, writeBook } from '../cli/generate';
import { runMigration } from '../cli/migrate';
import { enqueueEvents } from '../events/outbox';
import { accountCreatedEvents, postImportCompletedEvent } from '../imports/events';
import { importWorkflowId } from '../imports/workflowId';
import { runRetention } from '../maintenance/retention';
import { cpuSeconds, freePort, obtainToken, percentile, startBenchStack, writeResult } from './lib/stack';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';

const SIZES = (process.env.SCALE_SIZES ?? '0,50000,250000').split(',').map(Number);
const E2E_COUNT = Number(process.env.SCALE_E2E_COUNT ?? 300);
const PROBES = Number(process.env.SCALE_PROBES ?? 200);
const LOAD_BATCH = Number(process.env.SCALE_LOAD_BATCH ?? 25);
const LOAD_CONCURRENCY = Number(process.env.SCALE_LOAD_CONCURRENCY ?? 1);
export const SEED_COUNT = Number(process.env.SCALE_SEED_COUNT ?? 2000);
const COPY_ACCOUNTS_PER_TRANSACTION = Number(process.env.SCALE_COPY_ACCOUNTS_PER_TRANSACTION ?? 10000);
const SUPPLIER = 'DEMO_ENERGY';
const TABLE_GROUPS: Record<string, string[]> = {
  outbox: ['outbox', 'outbox_pending'],
  import_processes: ['import_processes'],
};

/**
 * Loads accounts BULK-(from+1) … BULK-to as imported and published (see the header). The first
 * SEED_COUNT go through the store's own insertAccount (seedAccounts); every later one is a copy of
 * a seed made by set-based SQL inside PostgreSQL (copyAccounts): thousands of accounts a second
 * instead of the store path's ~40 on a small shared machine.
 */
export async function bulkLoad(db: Knex, subjectPrefix: string, from: number, to: number): Promise<number> {
  if (to <= from) return 0;
  const t0 = performance.now();
  if (from < SEED_COUNT) await seedAccounts(db, subjectPrefix, from, Math.min(to, SEED_COUNT));
  if (to > SEED_COUNT) await copyAccounts(db, Math.max(from, SEED_COUNT), to);
  return (performance.now() - t0) / 1000;
}

async function retryOnDeadlock<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if ((err as { code?: string }).code !== '40P01' || attempt >= 5) throw err;
    }
  }
}

/** Accounts [from, to) through insertAccount, the import record and the outbox, in batched transactions. */
async function seedAccounts(db: Knex, subjectPrefix: string, from: number, to: number): Promise<void> {
  const t0 = performance.now();
  const book = generateBook({ seed: 'scale-bulk', count: to - from, start: from + 1, prefix: 'BULK-', profile: 'typical' });
  let done = 0;
  const nextBatch = () => {
    const batch = [];
    for (let i = 0; i < LOAD_BATCH; i++) {
      const n = book.next();
      if (n.done) break;
      batch.push(n.value);
    }
    return batch;
  };
  await Promise.all(
    Array.from({ length: LOAD_CONCURRENCY }, async () => {
      for (let batch = nextBatch(); batch.length > 0; batch = nextBatch()) {
        // Concurrent writers of PROCESSED rows can deadlock on the ops roll-up rows (their triggers): retried.
        await retryOnDeadlock(() => db.transaction(async (trx) => {
          const at = new Date();
          const eventIds: string[] = [];
          for (const account of batch) {
            const external = account.external_account_number;
            const created = await insertAccount(trx, { importSupplier: SUPPLIER, externalAccountNumber: external, accountNumber: newAccountNumber(), account });
            const workflowId = importWorkflowId(SUPPLIER, external);
            await trx('import_processes').insert({
              import_supplier: SUPPLIER,
              external_account_number: external,
              status: 'PROCESSED',
              kraken_identifier: created.accountNumber,
              payload: JSON.stringify(account),
              task_params: JSON.stringify({ is_dry_run: false }),
              schedule_window_start: at,
              schedule_window_end: at,
              workflow_id: workflowId,
              workflow_run_id: 'bulk',
              current_step: 'done',
              latest_event: JSON.stringify(latestEventFor('PROCESSED', at)),
              created_at: at,
              modified_at: at,
            });
            const scope = { workflowId, run: 1, externalAccountNumber: external, at };
            eventIds.push(...(await enqueueEvents(trx, subjectPrefix, [...accountCreatedEvents(scope, created), postImportCompletedEvent(scope, created.accountNumber)])));
          }
          // Published long ago: off the pending queue, so the relay leaves them alone.
          await trx.raw('DELETE FROM outbox_pending p USING outbox o WHERE o.seq = p.seq AND o.event_id = ANY(?::uuid[])', [eventIds]);
        }));
        done += batch.length;
        if (done % 5000 < LOAD_BATCH) process.stderr.write(`  bulk-loaded ${from + done}/${to} (${Math.round(done / ((performance.now() - t0) / 1000))} accounts/s)\n`);
      }
    }),
  );
  if (to === SEED_COUNT) await snapshotSeeds(db);
}


/**
 * Columns holding values that are unique per account in real data, whether the database enforces
 * it (user numbers, reference values, dunning process ids) or the validate lookups rely on it
 * (meter point identifiers, meter serials, e-mails): each copy appends its copy number, four
 * digits wide, so copies of one seed never share a value (fixed width keeps value ‖ copy unique).
 */
const PER_COPY_UNIQUE: Record<string, string[]> = {
  account_users: ['user_number', 'email'],
  property_administrators: ['email'],
  meter_points: ['identifier'],
  meters: ['meter_serial_number'],
  dunning_paths: ['dunning_process_id'],
  account_references: ['value'],
  meter_point_registrations: ['mpxn'],
};

interface CopyTable {
  name: string;
  key: string; // the bigserial column
  columns: string[];
  parents: Record<string, string>; // column → copied table it points at
}

/**
 * The tables a copy writes, parents before children: accounts, every table with an account_id
 * (the account tables of db/stores/accountTables.ts and any later ones), account_references,
 * import_processes and outbox. Read from the database, so a new account table is copied too. Not
 * account_digest_pending, the digest filler's queue (migration 0016): the copies are made around
 * the create that queues an account, and the queue would hand bench:scale's worker a backlog of
 * every copy to fill while it is measured (bench:reconcile stores the copies' digests itself).
 */
async function copyTables(db: Knex): Promise<CopyTable[]> {
  const cols: { table: string; columns: string[] }[] = (
    await db.raw(
      `SELECT table_name::text AS table, array_agg(column_name::text ORDER BY ordinal_position) AS columns
         FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> 'account_digest_pending' GROUP BY table_name
       HAVING bool_or(column_name = 'account_id') OR table_name IN ('accounts', 'account_references', 'import_processes', 'outbox')`,
    )
  ).rows;
  const fks: { child: string; parent: string; column: string }[] = (
    await db.raw(
      `SELECT c.conrelid::regclass::text AS child, c.confrelid::regclass::text AS parent, a.attname::text AS column
         FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
        WHERE c.contype = 'f' AND c.connamespace = 'public'::regnamespace`,
    )
  ).rows;
  const names = new Set(cols.map((c) => c.table));
  const tables = cols.map(({ table, columns }) => {
    const parents: Record<string, string> = {};
    for (const col of columns) if (col === 'account_id') parents[col] = 'accounts';
    for (const fk of fks) if (fk.child === table && names.has(fk.parent) && fk.column !== 'account_id') parents[fk.column] = fk.parent;
    return { name: table, key: table === 'outbox' ? 'seq' : 'id', columns, parents };
  });
  const ordered: CopyTable[] = [];
  while (ordered.length < tables.length) {
    const next = tables.filter((t) => !ordered.includes(t) && Object.values(t.parents).every((p) => p === t.name || ordered.some((o) => o.name === p)));
    if (next.length === 0) throw new Error('account tables: circular foreign keys');
    ordered.push(...next);
  }
  return ordered;
}

/** How each copied table's seed rows are found (s: the seed accounts). */
function seedJoin(table: string): string {
  if (table === 'accounts') return 'JOIN scale_seed.accounts s ON s.id = t.id';
  if (table === 'account_references') return 'JOIN scale_seed.accounts s ON s.number = t.account_number';
  if (table === 'import_processes') return `JOIN scale_seed.accounts s ON t.import_supplier = '${SUPPLIER}' AND t.external_account_number = s.external_account_number`;
  if (table === 'outbox') return `JOIN scale_seed.accounts s ON t.ordering_key = '${importWorkflowId(SUPPLIER, '')}' || s.external_account_number`;
  return 'JOIN scale_seed.accounts s ON s.id = t.account_id';
}

/**
 * Snapshots the seed accounts' rows of every copied table into the scale_seed schema (outside
 * `public`, so the byte counts leave it out), right after seeding: later retention passes prune
 * the seeds' events and payloads, and every copy must start from the rows as imported.
 */
async function snapshotSeeds(db: Knex): Promise<void> {
  await db.raw('DROP SCHEMA IF EXISTS scale_seed CASCADE; CREATE SCHEMA scale_seed');
  await db.raw(
    `CREATE UNLOGGED TABLE scale_seed.accounts AS SELECT id, number, external_account_number, substr(external_account_number, 6)::int AS seed_i
       FROM accounts WHERE import_supplier = ? AND external_account_number BETWEEN 'BULK-000001' AND ?`,
    [SUPPLIER, `BULK-${String(SEED_COUNT).padStart(6, '0')}`],
  );
  for (const t of await copyTables(db)) {
    if (t.name === 'accounts') continue;
    await db.raw(`CREATE UNLOGGED TABLE scale_seed.${t.name} AS SELECT t.*, s.seed_i FROM ${t.name} t ${seedJoin(t.name)}`);
  }
  await db.raw(`CREATE UNLOGGED TABLE scale_seed.accounts_rows AS SELECT t.*, s.seed_i FROM accounts t ${seedJoin('accounts')}`);
  await db.raw('ANALYZE');
}

/**
 * Accounts [from, to) (from ≥ SEED_COUNT) as copies of the seeds: account n is copy
 * c = ⌊(n−1)/SEED_COUNT⌋ of seed i = (n−1) mod SEED_COUNT + 1. For each table one
 * INSERT … SELECT from its snapshot × generate_series(copies): every bigserial key is moved by
 * base + c·span (base reserved on the table's sequence with setval, span = the seeds' key range),
 * every parent link by its parent's same offset, so children follow their parents; account number
 * (a bijection of n on 8 hex digits), external account number (BULK-n), workflow id and the
 * payload's external_account_number are the copy's own; PER_COPY_UNIQUE columns get the copy
 * number; events get fresh ids and stay published (not in outbox_pending). Rows go in key order, as
 * imports write them: at the right edge of the key indexes (unordered, their pages split half
 * full and the account tables came out 6 KB per account larger).
 */
async function copyAccounts(db: Knex, from: number, to: number): Promise<void> {
  const t0 = performance.now();
  const tables = await copyTables(db);
  const S = SEED_COUNT;
  const n = '(c * ' + S + ' + t.seed_i)';
  const number = `'A-' || upper(lpad(to_hex((${n}::bigint * 2654435761) % 4294967296), 8, '0'))`;
  const external = `'BULK-' || lpad(${n}::text, 6, '0')`;
  const perTxn = Math.max(1, Math.floor(COPY_ACCOUNTS_PER_TRANSACTION / S));
  const spans = new Map<string, { min: number; span: number }>();
  for (const t of tables) {
    const snap = t.name === 'accounts' ? 'scale_seed.accounts_rows' : `scale_seed.${t.name}`;
    const r = (await db.raw(`SELECT min(${t.key}) AS min, max(${t.key}) AS max FROM ${snap}`)).rows[0];
    if (r.min !== null) spans.set(t.name, { min: Number(r.min), span: Number(r.max) - Number(r.min) + 1 });
  }
  for (let c1 = Math.floor(from / S); c1 <= Math.floor((to - 1) / S); c1 += perTxn) {
    const c2 = Math.min(c1 + perTxn - 1, Math.floor((to - 1) / S));
    await db.transaction(async (trx) => {
      // Foreign keys hold by construction; the per-row checks (and the ops roll-up triggers,
      // whose aggregates no figure here reads) would make the copy several times slower.
      if (process.env.SCALE_COPY_TRIGGERS !== '1') await trx.raw('SET LOCAL session_replication_role = replica');
      const offset = new Map<string, string>();
      for (const t of tables) {
        const s = spans.get(t.name);
        if (!s) continue;
        const seq = `pg_get_serial_sequence('${t.name}', '${t.key}')`;
        const base = Number((await trx.raw(`SELECT nextval(${seq}) - 1 AS base`)).rows[0].base);
        await trx.raw(`SELECT setval(${seq}, ?)`, [base + (c2 - c1 + 1) * s.span]);
        offset.set(t.name, `(${base + 1 - s.min - c1 * s.span} + c * ${s.span})`);
      }
      for (const t of tables) {
        if (!spans.has(t.name)) continue;
        const expr = t.columns.map((col) => {
          if (col === t.key) return `t."${col}" + ${offset.get(t.name)}`;
          if (t.parents[col]) return `t."${col}" + ${offset.get(t.parents[col]!)}`;
          if (PER_COPY_UNIQUE[t.name]?.includes(col)) return `t."${col}" || lpad(c::text, 4, '0')`;
          if (col === 'event_id') return 'gen_random_uuid()';
          if (t.name === 'accounts' && col === 'number') return number;
          // A copy is another account: not its seed's digest (the copy runs without the triggers
          // that would forget it; bench:reconcile stores the copies' own).
          if (t.name === 'accounts' && col === 'stored_digest') return 'NULL';
          if (t.name === 'account_references' && col === 'account_number') return number;
          if (t.name === 'import_processes' && col === 'kraken_identifier') return number;
          if (col === 'external_account_number') return external;
          if (col === 'workflow_id' || (t.name === 'outbox' && col === 'ordering_key')) return `'${importWorkflowId(SUPPLIER, '')}' || ${external}`;
          if (t.name === 'import_processes' && col === 'payload') return `jsonb_set(t.payload, '{external_account_number}', to_jsonb(${external}))`;
          return `t."${col}"`;
        });
        const snap = t.name === 'accounts' ? 'scale_seed.accounts_rows' : `scale_seed.${t.name}`;
        await trx.raw(
          `INSERT INTO ${t.name} (${t.columns.map((col) => `"${col}"`).join(', ')}) SELECT ${expr.join(', ')} FROM ${snap} t CROSS JOIN generate_series(${c1}, ${c2}) AS c WHERE ${n} > ${from} AND ${n} <= ${to} ORDER BY c, t."${t.key}"`,
        );
      }
    });
    const done = Math.min(to, (c2 + 1) * S) - from;
    process.stderr.write(`  copied ${from + done}/${to} (${Math.round(done / ((performance.now() - t0) / 1000))} accounts/s)\n`);
  }
}

/**
 * CPU seconds of the PostgreSQL backends serving this benchmark's database (the server is shared
 * with other work, so its total says nothing about us). Pooled connections live through a run;
 * a backend that exits mid-run takes its CPU with it, so this is a slight underestimate.
 */
async function databaseCpu(db: Knex): Promise<Map<number, number>> {
  const pids: number[] = (await db.raw('SELECT pid FROM pg_stat_activity WHERE datname = current_database()')).rows.map((r: { pid: number }) => r.pid);
  return new Map(pids.map((pid) => [pid, cpuSeconds(pid)]));
}

function databaseCpuDelta(a: Map<number, number>, b: Map<number, number>): number {
  let total = 0;
  for (const [pid, cpu] of b) total += cpu - (a.get(pid) ?? 0);
  return total;
}

async function tableBytes(db: Knex): Promise<Record<string, number>> {
  const rows: { relname: string; bytes: string }[] = (
    await db.raw("SELECT c.relname, pg_total_relation_size(c.oid) AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r'")
  ).rows;
  const out: Record<string, number> = {};
  for (const r of rows) {
    const group = Object.entries(TABLE_GROUPS).find(([, tables]) => tables.includes(r.relname))?.[0] ?? (r.relname.startsWith('knex_') ? 'other' : 'account tables');
    out[group] = (out[group] ?? 0) + Number(r.bytes);
  }
  out.total = Object.values(out).reduce((a, b) => a + b, 0);
  return out;
}

const perAccount = (bytes: Record<string, number>, base: Record<string, number> | null, accounts: number) =>
  Object.fromEntries(Object.entries(bytes).map(([k, v]) => [k, accounts > 0 ? +((v - (base?.[k] ?? 0)) / accounts / 1024).toFixed(1) : null]));

async function timed(n: number, fn: (i: number) => Promise<void>): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    ms.push(performance.now() - t);
  }
  return ms.sort((a, b) => a - b);
}

async function relayLag(metricsUrl: string): Promise<{ sum: number; count: number; buckets: [number, number][] }> {
  const text = await (await fetch(metricsUrl)).text();
  const num = (re: RegExp) => Number(re.exec(text)?.[1] ?? 0);
  const buckets = [...text.matchAll(/data_import_relay_lag_seconds_bucket\{le="([^"]+)"[^}]*\} (\d+)/g)].map((m) => [m[1] === '+Inf' ? Infinity : Number(m[1]), Number(m[2])] as [number, number]);
  return { sum: num(/data_import_relay_lag_seconds_sum\{[^}]*\} ([\d.e+-]+)/), count: num(/data_import_relay_lag_seconds_count\{[^}]*\} (\d+)/), buckets };
}

function lagFigures(a: Awaited<ReturnType<typeof relayLag>>, b: Awaited<ReturnType<typeof relayLag>>) {
  const count = b.count - a.count;
  if (count <= 0) return { meanMs: null, p95UpToMs: null };
  const target = 0.95 * count;
  const p95 = b.buckets.find(([le], i) => b.buckets[i]![1] - (a.buckets[i]?.[1] ?? 0) >= target)?.[0] ?? Infinity;
  return { meanMs: Math.round(((b.sum - a.sum) / count) * 1000), p95UpToMs: Number.isFinite(p95) ? p95 * 1000 : null };
}

async function main() {
  const metricsPort = await freePort();
  const subjectPrefix = `bench${process.pid}`;
  const stack = await startBenchStack({ env: { WORKER_METRICS_PORT: String(metricsPort), MAINTENANCE_INTERVAL_MINUTES: '0' } });
  const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  // The stack waits for the API; the worker's metrics listener comes up once it has connected.
  for (let i = 0; !(await fetch(metricsUrl).then((r) => r.ok, () => false)); i++) {
    if (i > 600) throw new Error(`the worker's metrics at ${metricsUrl} never answered`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const db = createDb(stack.databaseUrl, LOAD_CONCURRENCY + 2);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'di-scale-'));
  const rows: Record<string, unknown>[] = [];
  try {
    const token = await obtainToken(stack.apiUrl, stack.apiKey);
    const auth = { Authorization: `Token ${token}`, 'Content-Type': 'application/json' };
    let loaded = 0;
    let imported = 0;
    let previousAfter: Record<string, number> | null = null;
    let accountsAtPreviousAfter = 0;
    for (const size of SIZES) {
      process.stderr.write(`size ${size}: bulk-loading ${Math.max(0, size - imported)} accounts\n`);
      const loadSeconds = await bulkLoad(db, subjectPrefix, loaded, loaded + Math.max(0, size - imported));
      loaded += Math.max(0, size - imported);
      imported = Math.max(imported, size);
      await db.raw('ANALYZE');

      // Throughput and CPU per account.
      const input = path.join(tmp, `e2e-${size}.ndjson`);
      await writeBook({ out: input, count: E2E_COUNT, seed: `scale-e2e-${size}`, prefix: `E${size}-`, profile: 'typical' });
      const lag0 = await relayLag(metricsUrl);
      const cpu0 = stack.cpu();
      const pg0 = await databaseCpu(db);
      const summary = await runMigration({ input, apiUrl: stack.apiUrl, apiKey: stack.apiKey, concurrency: 16, pollIntervalMs: 250, progress: 'none' });
      const cpu1 = stack.cpu();
      const pg1 = await databaseCpu(db);
      // The last events of the run (post-import) are relayed shortly after the last PROCESSED.
      for (let i = 0; i < 100 && Number((await db('outbox_pending').count({ n: '*' }))[0]!.n) > 0; i++) await new Promise((r) => setTimeout(r, 100));
      const lag = lagFigures(lag0, await relayLag(metricsUrl));
      imported += summary.counts.PROCESSED ?? 0;
      // API, worker, Temporal and this database's backends; not the client (the migrate command's
      // polling) nor the rest of a shared PostgreSQL server.
      const cpuByPart: Record<string, number> = {
        api: Math.round(((cpu1.api! - cpu0.api!) * 1000) / E2E_COUNT),
        worker: Math.round(((cpu1.worker! - cpu0.worker!) * 1000) / E2E_COUNT),
        temporal: Math.round(((cpu1.temporal! - cpu0.temporal!) * 1000) / E2E_COUNT),
        postgres: Math.round((databaseCpuDelta(pg0, pg1) * 1000) / E2E_COUNT),
      };
      const cpuMsPerAccount = Object.values(cpuByPart).reduce((a, b) => a + b, 0);

      // Validate: new accounts, every reference and meter point looked up among the stored ones.
      const probes = [...generateBook({ seed: `scale-validate-${size}`, count: PROBES, prefix: `V${size}-`, profile: 'typical' })];
      const validateMs = await timed(PROBES, async (i) => {
        const r = await fetch(`${stack.apiUrl}/v2/data-import/accounts/validate/`, { method: 'POST', headers: auth, body: JSON.stringify(probes[i]) });
        await r.arrayBuffer();
      });
      // Status of random stored accounts.
      const statusMs = await timed(PROBES, async () => {
        const n = 1 + Math.floor(Math.random() * Math.max(1, loaded));
        const ext = loaded > 0 ? `BULK-${String(n).padStart(6, '0')}` : `E${size}-${String(1 + Math.floor(Math.random() * E2E_COUNT)).padStart(6, '0')}`;
        const r = await fetch(`${stack.apiUrl}/v2/data-import/accounts/${SUPPLIER}/${ext}/`, { headers: auth });
        await r.arrayBuffer();
      });

      // Storage before and after retention.
      await db.raw('VACUUM');
      const before = await tableBytes(db);
      const r = await runRetention(db, { outboxRetentionSeconds: 0, payloadRetentionSeconds: 0, batchSize: 5000, maxRowsPerRun: Number.MAX_SAFE_INTEGER, pauseMs: 0 });
      await db.raw('VACUUM');
      const after = await tableBytes(db);
      const added = imported - accountsAtPreviousAfter;
      const row = {
        accounts: imported,
        bulkLoadSeconds: +loadSeconds.toFixed(0),
        importPerSecond: summary.accountsPerSecond,
        processed: summary.counts.PROCESSED ?? 0,
        cpuMsPerAccount,
        cpuMsPerAccountByPart: cpuByPart,
        validateP50Ms: +percentile(validateMs, 50).toFixed(1),
        validateP95Ms: +percentile(validateMs, 95).toFixed(1),
        statusP50Ms: +percentile(statusMs, 50).toFixed(1),
        statusP95Ms: +percentile(statusMs, 95).toFixed(1),
        relayLagMeanMs: lag.meanMs,
        relayLagP95UpToMs: lag.p95UpToMs,
        prunedOutbox: r.outbox.pruned,
        prunedPayloads: r.payload.pruned,
        kbPerAccountBeforeRetention: perAccount(before, previousAfter, added),
        kbPerAccountAfterRetention: perAccount(after, null, imported),
      };
      rows.push(row);
      console.log(JSON.stringify(row));
      previousAfter = after;
      accountsAtPreviousAfter = imported;
      writeResult('scale', { sizes: SIZES, e2eCount: E2E_COUNT, probes: PROBES, seedCount: SEED_COUNT, rows, note: 'measured on a shared 2-core machine with other work running' });
    }
    console.log(`written ${path.join('bench', 'results', 'scale.json')}`);
  } finally {
    await db.destroy();
    await stack.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

// Run as a script; imported (bench/reconcile.ts loads its database with bulkLoad), nothing runs.
if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
