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
 * BENCH_FLOOR_EAGER=1: the imports are started by the worker process itself, through its worker's
 * connection with eager start, as an API with API_EAGER_START starts them (bench/lib/floorWorker.ts);
 * the starter column is then this process's share of handing it the rows, and the worker's
 * includes the starts. The eager and fallback starts are counted.
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
import { median as medianOf } from './lib/stats';
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
const EAGER = process.env.BENCH_FLOOR_EAGER === '1';
/** BENCH_FLOOR_PAIRS=n: n pairs of orchestration runs, without and with eager start, in alternating order; written to floor-eager.json. */
const PAIRS = Number(process.env.BENCH_FLOOR_PAIRS ?? 0);

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

async function orchestration(eager: boolean) {
  const { temporal, temporalPort, temporalMetricsPort } = await startTemporalDevServer({ dbFile: TEMPORAL_DB, pragmas: TEMPORAL_PRAGMAS });
  const address = `127.0.0.1:${temporalPort}`;
  const worker = spawn(process.execPath, [...workerNodeOptions(process.env), '--import', 'tsx', path.join(__dirname, 'lib', 'floorWorker.ts'), address, TASK_QUEUE, ...(eager ? ['eager'] : [])], {
    env: serviceProcessEnv(process.env),
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  try {
    const waiting = new Map<string, () => void>();
    const starting = new Map<string, () => void>();
    const eagerStarts = { eager: 0, fallback: 0 };
    await new Promise<void>((resolve, reject) => {
      worker.on('message', (m: string | { started: string; eager: boolean }) => {
        if (m === 'ready') return resolve();
        if (typeof m === 'object') {
          eagerStarts[m.eager ? 'eager' : 'fallback']++;
          return starting.get(m.started)?.();
        }
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
            if (eager) {
              const started = new Promise<void>((resolve) => starting.set(p.id, resolve));
              worker.send({ start: p });
              await started;
              starting.delete(p.id);
            } else {
              await startImportWorkflow(client, TASK_QUEUE, p);
            }
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
    const e0 = { ...eagerStarts };
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
      eagerStart: eager ? { eager: eagerStarts.eager - e0.eager, fallback: eagerStarts.fallback - e0.fallback } : null,
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
const median = (xs: number[]) => medianOf(xs, 2);

/**
 * The Temporal part of the floor (dev server + worker + starter) without and with eager start, in
 * BENCH_FLOOR_PAIRS back-to-back pairs (the order alternates, so the machine's drift falls on both);
 * each pair's ratio, and the medians.
 */
async function eagerPairs(): Promise<void> {
  const pairs: { order: string; plain: Orchestration; eager: Orchestration; ratio: number }[] = [];
  for (let i = 0; i < PAIRS; i++) {
    const eagerFirst = i % 2 === 1;
    const runs: Partial<Record<'plain' | 'eager', Orchestration>> = {};
    for (const eager of eagerFirst ? [true, false] : [false, true]) {
      console.error(`[floor] pair ${i + 1}/${PAIRS}: ${COUNT} imports ${eager ? 'with' : 'without'} eager start, store ${TEMPORAL_STORE}`);
      runs[eager ? 'eager' : 'plain'] = await orchestration(eager);
    }
    const { plain, eager } = runs as Record<'plain' | 'eager', Orchestration>;
    const ratio = +(temporalPart(eager) / temporalPart(plain)).toFixed(2);
    pairs.push({ order: eagerFirst ? 'eager first' : 'plain first', plain, eager, ratio });
    console.log(`pair ${i + 1}: without ${temporalPart(plain)} ms/import (${plain.importsPerSecond}/s), with eager start ${temporalPart(eager)} ms/import (${eager.importsPerSecond}/s, ${eager.eagerStart?.eager} eager, ${eager.eagerStart?.fallback} fell back): ${ratio}`);
  }
  const summary = {
    medianRatio: median(pairs.map((p) => p.ratio)),
    ratioRange: [Math.min(...pairs.map((p) => p.ratio)), Math.max(...pairs.map((p) => p.ratio))],
    medianTemporalPartMs: { plain: median(pairs.map((p) => temporalPart(p.plain))), eager: median(pairs.map((p) => temporalPart(p.eager))) },
    medianByProcess: Object.fromEntries(
      (['temporal', 'worker', 'starter'] as const).map((k) => [k, { plain: median(pairs.map((p) => p.plain.cpuMsPerImport[k])), eager: median(pairs.map((p) => p.eager.cpuMsPerImport[k])) }]),
    ),
    medianImportsPerSecond: { plain: median(pairs.map((p) => p.plain.importsPerSecond)), eager: median(pairs.map((p) => p.eager.importsPerSecond)) },
    requestsPerImport: {
      frontend: { plain: median(pairs.map((p) => p.plain.temporalFrontendRequestsPerImport)), eager: median(pairs.map((p) => p.eager.temporalFrontendRequestsPerImport)) },
      persistence: { plain: median(pairs.map((p) => p.plain.temporalPersistenceRequestsPerImport)), eager: median(pairs.map((p) => p.eager.temporalPersistenceRequestsPerImport)) },
    },
  };
  console.log(`Temporal part of the floor with eager start ÷ without: median ${summary.medianRatio} (range ${summary.ratioRange.join('–')}) over ${PAIRS} pairs`);
  console.log(`written ${writeResult('floor-eager', { concurrency: CONCURRENCY, imports: COUNT, cores: os.cpus().length, temporalStore: TEMPORAL_STORE, loadAverage: os.loadavg(), pairs, summary })}`);
}

/** Accounts per second the machine's cores allow at `ms` of CPU each. */
const ceiling = (ms: number) => +((os.cpus().length * 1000) / ms).toFixed(1);

async function main(): Promise<void> {
  if (PAIRS > 0) return eagerPairs();
  console.error(`[floor] orchestration alone: ${COUNT} imports whose steps do nothing, ${CONCURRENCY} in flight, the dev server's store ${TEMPORAL_STORE}`);
  const o = await orchestration(EAGER);
  const t = o.cpuMsPerImport;
  console.log(`orchestration alone (dev server store ${TEMPORAL_STORE}${EAGER ? ', eager start from the worker process' : ''}): ${o.importsPerSecond} imports/s, CPU ms/import temporal ${t.temporal}, worker ${t.worker}, starter ${t.starter} (together ${temporalPart(o)}); Temporal frontend requests ${o.temporalFrontendRequestsPerImport}/import, persistence ${o.temporalPersistenceRequestsPerImport}/import, worker peak RSS ${o.peakRssWorkerMiB} MiB${o.eagerStart ? `; starts eager ${o.eagerStart.eager}, fell back ${o.eagerStart.fallback}` : ''}`);
  if (ORCHESTRATION_ONLY) {
    console.log(`written ${writeResult(EAGER ? 'floor-orchestration-eager' : 'floor-orchestration', { concurrency: CONCURRENCY, cores: os.cpus().length, temporalStore: TEMPORAL_STORE, eager: EAGER, loadAverage: os.loadavg(), orchestration: o })}`);
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
