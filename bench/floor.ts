/**
 * The floor of the design (issue "Half the CPU per imported account"): what one import costs when
 * its steps do nothing, and what the account write alone costs — on this machine, in this run.
 *   npm run bench:floor       (BENCH_COUNT, default 1000; BENCH_LARGE_COUNT, default 300;
 *                              BENCH_CONCURRENCY, default 32)
 *
 * 1. Orchestration alone. A Temporal dev server of its own (bench/lib/stack.ts), the service's
 *    workflow bundle and worker options in a worker process whose import steps answer at once
 *    (bench/lib/floorWorker.ts, with the worker's node flags), and imports started exactly as the
 *    API starts them (imports/startWorkflow.ts), `BENCH_CONCURRENCY` in flight. CPU from /proc of
 *    the dev server and the worker, and of this process for the starts.
 * 2. The account write alone: `BENCH_COUNT` typical and `BENCH_LARGE_COUNT` large accounts (the
 *    profiles of bench/compare.ts) through the create store code (insertAccount, one transaction
 *    each: bench/lib/baseline.ts) into a fresh database. CPU of every PostgreSQL process, and of
 *    this process (knex, node-postgres). The workflow carries ids only, so 1. is the same for both.
 * The dev server runs in memory; with BENCH_TEMPORAL_DB=<file> it runs on that SQLite file (made
 * fresh) with the SQLite settings of TEMPORAL_SQLITE_PRAGMAS (default WAL + synchronous=NORMAL,
 * `none` for SQLite's own), as `npm run up` runs it; BENCH_FLOOR_PARTS=orchestration measures 1.
 * only (bench/NOTES.md "The dev server's SQLite settings").
 * bench/e2e.ts and bench/compare.ts measure the whole service; the difference is what the
 * service's own steps, events, API and client add (bench/NOTES.md "The floor").
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { generateBook, type Profile } from '../cli/generate';
import { startImportWorkflow } from '../imports/startWorkflow';
import type { ImportProcess } from '../imports/store';
import { serviceProcessEnv, workerNodeOptions } from '../lib/nodeOptions';
import { rawBaselinePerSecond, withFreshDatabase } from './lib/baseline';
import { cpuSeconds, ownCpuSeconds, peakRssMiB, postgresCpuSeconds, startTemporalDevServer, temporalRequests, temporalSqlitePragmas, writeResult } from './lib/stack';

const COUNT = Number(process.env.BENCH_COUNT ?? 1000);
const LARGE_COUNT = Number(process.env.BENCH_LARGE_COUNT ?? 300);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const WARM_UP = 64;
const TASK_QUEUE = 'floor';
/** The dev server's store: in memory, or a SQLite file with the pragmas of TEMPORAL_SQLITE_PRAGMAS. */
const TEMPORAL_DB = process.env.BENCH_TEMPORAL_DB ? path.resolve(process.env.BENCH_TEMPORAL_DB) : undefined;
const TEMPORAL_PRAGMAS = TEMPORAL_DB ? temporalSqlitePragmas(process.env) : [];
const TEMPORAL_STORE = TEMPORAL_DB ? `file${TEMPORAL_PRAGMAS.length ? ` (${TEMPORAL_PRAGMAS.join(', ')})` : ' (SQLite defaults)'}` : 'memory';
const ORCHESTRATION_ONLY = process.env.BENCH_FLOOR_PARTS === 'orchestration';

const ms = (seconds: number, n: number) => +((seconds * 1000) / n).toFixed(1);

/** An import process row as the API would have stored it: run 1, PENDING, window open now. */
function processRow(i: number): ImportProcess {
  const external = `FLOOR-${i}`;
  return {
    id: randomUUID(),
    run: 1,
    importSupplier: 'FLOOR',
    externalAccountNumber: external,
    isDryRun: false,
    scheduleWindowStart: new Date(Date.now() - 1000),
    scheduleWindowEnd: new Date(Date.now() + 86_400_000),
    workflowId: `account-import:FLOOR:${external}`,
  } as ImportProcess;
}

async function orchestration() {
  const { temporal, temporalPort, temporalMetricsPort } = await startTemporalDevServer({ dbFile: TEMPORAL_DB, pragmas: TEMPORAL_PRAGMAS });
  const address = `127.0.0.1:${temporalPort}`;
  const worker = spawn(process.execPath, [...workerNodeOptions(process.env), '--import', 'tsx', path.join(__dirname, 'lib', 'floorWorker.ts'), address, TASK_QUEUE], {
    env: serviceProcessEnv(process.env),
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  try {
    const waiting = new Map<string, () => void>();
    await new Promise<void>((resolve, reject) => {
      worker.on('message', (m: string) => {
        if (m === 'ready') return resolve();
        waiting.get(String(m))?.();
      });
      worker.on('exit', (code) => reject(new Error(`the floor worker exited with ${code}`)));
    });
    const client = new Client({ connection: await Connection.connect({ address }) });
    let next = 0;
    const runImports = async (n: number) => {
      const end = next + n;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < end) {
            const p = processRow(next++);
            const finished = new Promise<void>((resolve) => waiting.set(p.id, resolve));
            await startImportWorkflow(client, TASK_QUEUE, p);
            await finished;
            waiting.delete(p.id);
          }
        }),
      );
    };
    await runImports(WARM_UP);
    // The last step has run; let the workflow tasks that complete the warm-up imports finish too.
    await new Promise((r) => setTimeout(r, 1000));
    const metricsUrl = `http://127.0.0.1:${temporalMetricsPort}/metrics`;
    const r0 = await temporalRequests(metricsUrl);
    const c0 = { temporal: cpuSeconds(temporal.pid!), worker: cpuSeconds(worker.pid!), starter: ownCpuSeconds() };
    const t0 = performance.now();
    await runImports(COUNT);
    const seconds = (performance.now() - t0) / 1000;
    await new Promise((r) => setTimeout(r, 1000));
    const c1 = { temporal: cpuSeconds(temporal.pid!), worker: cpuSeconds(worker.pid!), starter: ownCpuSeconds() };
    const r1 = await temporalRequests(metricsUrl);
    const frontend = Object.keys(r1.byOperation)
      .filter((k) => k.startsWith('frontend.'))
      .reduce((sum, k) => sum + (r1.byOperation[k]! - (r0.byOperation[k] ?? 0)), 0);
    await client.connection.close();
    return {
      imports: COUNT,
      importsPerSecond: +(COUNT / seconds).toFixed(1),
      cpuMsPerImport: { temporal: ms(c1.temporal - c0.temporal, COUNT), worker: ms(c1.worker - c0.worker, COUNT), starter: ms(c1.starter - c0.starter, COUNT) },
      temporalFrontendRequestsPerImport: +(frontend / COUNT).toFixed(2),
      temporalPersistenceRequestsPerImport: +((r1.persistence - r0.persistence) / COUNT).toFixed(2),
      peakRssWorkerMiB: peakRssMiB(worker.pid!),
    };
  } finally {
    worker.kill('SIGTERM');
    temporal.kill('SIGTERM');
    if (TEMPORAL_DB) {
      await new Promise((r) => (temporal.exitCode === null && temporal.signalCode === null ? temporal.once('exit', r) : r(null)));
      for (const suffix of ['', '-wal', '-shm', '-journal']) fs.rmSync(`${TEMPORAL_DB}${suffix}`, { force: true });
    }
  }
}

async function accountWrite(profile: Profile, count: number) {
  return withFreshDatabase(`floor_${profile}`, CONCURRENCY + 2, async (db) => {
    const accounts = [...generateBook({ seed: 'floor', count, profile })];
    const c0 = { postgres: postgresCpuSeconds(), node: ownCpuSeconds() };
    const perSecond = await rawBaselinePerSecond(db, accounts, CONCURRENCY);
    const c1 = { postgres: postgresCpuSeconds(), node: ownCpuSeconds() };
    return {
      accounts: count,
      accountsPerSecond: +perSecond.toFixed(1),
      cpuMsPerAccount: { postgres: ms(c1.postgres - c0.postgres, count), node: ms(c1.node - c0.node, count) },
    };
  });
}

/** The floor by process, as bench/compare.ts's CPU columns split an import. */
function floorParts(o: Awaited<ReturnType<typeof orchestration>>, w: Awaited<ReturnType<typeof accountWrite>>): { part: string; column: string; ms: number }[] {
  return [
    { part: 'Temporal dev server: one import workflow', column: 'temporal', ms: o.cpuMsPerImport.temporal },
    { part: 'worker: the Temporal SDK running it (steps do nothing)', column: 'worker', ms: o.cpuMsPerImport.worker },
    { part: 'starting the workflow (the client the API uses)', column: 'api', ms: o.cpuMsPerImport.starter },
    { part: 'PostgreSQL: the account insert alone', column: 'postgres', ms: w.cpuMsPerAccount.postgres },
    { part: 'node: insertAccount alone (knex, node-postgres)', column: 'worker', ms: w.cpuMsPerAccount.node },
  ];
}

type Orchestration = Awaited<ReturnType<typeof orchestration>>;
const temporalPart = (o: Orchestration) => +(o.cpuMsPerImport.temporal + o.cpuMsPerImport.worker + o.cpuMsPerImport.starter).toFixed(1);

/** Accounts per second the machine's cores allow at `ms` of CPU each. */
const ceiling = (ms: number) => +((os.cpus().length * 1000) / ms).toFixed(1);

async function main(): Promise<void> {
  console.error(`[floor] orchestration alone: ${COUNT} imports whose steps do nothing, ${CONCURRENCY} in flight, the dev server's store ${TEMPORAL_STORE}`);
  const o = await orchestration();
  const t = o.cpuMsPerImport;
  console.log(`orchestration alone (dev server store ${TEMPORAL_STORE}): ${o.importsPerSecond} imports/s, CPU ms/import temporal ${t.temporal}, worker ${t.worker}, starter ${t.starter} (together ${temporalPart(o)}); Temporal frontend requests ${o.temporalFrontendRequestsPerImport}/import, persistence ${o.temporalPersistenceRequestsPerImport}/import, worker peak RSS ${o.peakRssWorkerMiB} MiB`);
  if (ORCHESTRATION_ONLY) {
    console.log(`written ${writeResult('floor-orchestration', { concurrency: CONCURRENCY, cores: os.cpus().length, temporalStore: TEMPORAL_STORE, loadAverage: os.loadavg(), orchestration: o })}`);
    return;
  }
  const profiles: Record<string, unknown> = {};
  for (const [profile, count] of [['typical', COUNT], ['large', LARGE_COUNT]] as const) {
    console.error(`[floor] the account write alone: ${count} ${profile} accounts`);
    const w = await accountWrite(profile, count);
    const parts = floorParts(o, w);
    const totalMsPerAccount = +parts.reduce((sum, p) => sum + p.ms, 0).toFixed(1);
    console.log(`\n${profile} accounts: the account write alone ${w.accountsPerSecond} accounts/s`);
    console.table(parts.map((p) => ({ part: p.part, 'CPU ms per account': p.ms })));
    console.log(`floor: ${totalMsPerAccount} ms of CPU per account, at most ${ceiling(totalMsPerAccount)} accounts/s on this machine's ${os.cpus().length} cores`);
    profiles[profile] = { parts, totalMsPerAccount, ceilingAccountsPerSecond: ceiling(totalMsPerAccount), accountWrite: w };
  }
  console.log(`written ${writeResult('floor', { concurrency: CONCURRENCY, cores: os.cpus().length, temporalStore: TEMPORAL_STORE, orchestration: o, profiles })}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
