/**
 * bench/e2e (issue "Migrating a whole book"): `data-import migrate` of 2,000 generated typical
 * accounts against the service running as separate processes — accounts/s, p50/p95
 * create→PROCESSED — the raw baseline (the same accounts through the create store code alone,
 * without Temporal or HTTP) with the ratio, and the peak RSS of the API and the worker.
 *
 *   npm run bench:e2e        (BENCH_COUNT=500 for a shorter run)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDb } from '../db/knex';
import { generateBook, writeBook } from '../cli/generate';
import { runMigration } from '../cli/migrate';
import { startBenchStack, writeResult } from './lib/stack';
import { rawBaselinePerSecond } from './lib/baseline';
import { readStatements, resetStatements } from './lib/pgStatements';

const COUNT = Number(process.env.BENCH_COUNT ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'di-e2e-'));
  const input = path.join(dir, 'book.ndjson');
  await writeBook({ out: input, count: COUNT, seed: 'bench-e2e', profile: 'typical' });
  // BENCH_PROFILE=<dir> writes a V8 CPU profile of the worker there, BENCH_API_PROFILE=<dir> one of the API.
  const cpuProf = (dir: string | undefined) => (dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : []);
  const stack = await startBenchStack({
    workerNodeArgs: [...(process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean), ...cpuProf(process.env.BENCH_PROFILE)],
    apiNodeArgs: [...(process.env.BENCH_API_NODE_ARGS ?? '').split(' ').filter(Boolean), ...cpuProf(process.env.BENCH_API_PROFILE)],
  });
  try {
    const statsDb = createDb(stack.databaseUrl, 1);
    const statements0 = await resetStatements(statsDb);
    const cpuBefore = stack.cpu();
    const summary = await runMigration({
      input,
      apiUrl: stack.apiUrl,
      apiKey: stack.apiKey,
      concurrency: CONCURRENCY,
      pollIntervalMs: Number(process.env.BENCH_POLL_MS ?? 500),
      progress: 'plain',
    });
    const rss = { apiMiB: stack.peakRssMiB(stack.api), workerMiB: stack.peakRssMiB(stack.worker) };
    // Where the time goes: CPU milliseconds per imported account, by process.
    const cpuAfter = stack.cpu();
    const cpuMsPerAccount = Object.fromEntries(
      Object.keys(cpuAfter).map((k) => [k, Math.round(((cpuAfter[k]! - cpuBefore[k]!) * 1000) / COUNT)]),
    );
    const statements = statements0.available ? await readStatements(statsDb, COUNT) : statements0;
    await statsDb.destroy();

    // Raw baseline: the create store code alone, one transaction per account, same concurrency.
    const db = createDb(stack.databaseUrl, CONCURRENCY + 2);
    const baselinePerSecond = await rawBaselinePerSecond(db, [...generateBook({ seed: 'bench-e2e', count: COUNT, profile: 'typical' })], CONCURRENCY);
    await db.destroy();

    const result = {
      accounts: COUNT,
      concurrency: CONCURRENCY,
      processed: summary.counts.PROCESSED ?? 0,
      counts: summary.counts,
      accountsPerSecond: +summary.accountsPerSecond.toFixed(1),
      latencyMs: summary.latencyMs,
      baselinePerSecond: +baselinePerSecond.toFixed(1),
      ratio: +(baselinePerSecond / summary.accountsPerSecond).toFixed(2),
      peakRss: rss,
      cpuMsPerAccount,
      durationMs: summary.durationMs,
      statements,
    };
    console.log(JSON.stringify(result, null, 2));
    console.log(`written ${writeResult('e2e', result)}`);
  } finally {
    await stack.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
