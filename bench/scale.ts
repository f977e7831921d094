/**
 * Growth benchmark (issue 17): does the millionth account cost what the first did?
 *
 *   npm run bench:scale                              (sizes 0, 50,000 and 250,000: hours on a small machine)
 *   SCALE_SIZES=0,5000,20000 npm run bench:scale     (a quick run)
 *
 * The service runs as separate processes (bench/lib/stack.ts). For each size in SCALE_SIZES the
 * database is first bulk-loaded up to that many imported accounts — the account tables through
 * the store's own insertAccount, the PROCESSED import record with its stored payload, and the
 * account's events in the outbox as published — in batched transactions, not through HTTP. Then,
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
const LOAD_CONCURRENCY = Number(process.env.SCALE_LOAD_CONCURRENCY ?? 3);
const SUPPLIER = 'DEMO_ENERGY';
const TABLE_GROUPS: Record<string, string[]> = {
  outbox: ['outbox', 'outbox_pending'],
  import_processes: ['import_processes'],
};

/** Bulk-loads accounts [from, to) as imported and published (see the header). */
async function bulkLoad(db: Knex, subjectPrefix: string, from: number, to: number): Promise<number> {
  if (to <= from) return 0;
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
        await db.transaction(async (trx) => {
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
        });
        done += batch.length;
        if (done % 5000 < LOAD_BATCH) process.stderr.write(`  bulk-loaded ${from + done}/${to} (${Math.round(done / ((performance.now() - t0) / 1000))} accounts/s)\n`);
      }
    }),
  );
  return (performance.now() - t0) / 1000;
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
      writeResult('scale', { sizes: SIZES, e2eCount: E2E_COUNT, probes: PROBES, rows, note: 'measured on a shared 2-core machine with other work running' });
    }
    console.log(`written ${path.join('bench', 'results', 'scale.json')}`);
  } finally {
    await db.destroy();
    await stack.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
