/**
 * bench/import: accounts per second from create to PROCESSED with 1, 8 and 32 imports in flight,
 * median and p95 create→PROCESSED latency, for typical and large generated accounts, against the
 * service running as separate processes (API, worker, Temporal dev server, PostgreSQL, NATS); and
 * the raw baseline: the same accounts written by the create activity's store code in one
 * transaction each, without Temporal or HTTP. The ratio shows what orchestration costs.
 *
 *   npm run bench:import            (BENCH_QUICK=1 for a short run)
 */
import { createDb } from '../db/knex';
import { generateBook } from '../cli/generate';
import type { Account } from '../account/schema';
import { obtainToken, percentile, startBenchStack, writeResult } from './lib/stack';
import { rawBaselinePerSecond } from './lib/baseline';

const QUICK = process.env.BENCH_QUICK === '1';

interface Row {
  profile: string;
  inFlight: number;
  accounts: number;
  perSecond: number;
  p50Ms: number;
  p95Ms: number;
  baselinePerSecond: number;
  ratio: number;
}

async function pool<T>(items: T[], concurrency: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

async function main() {
  const stack = await startBenchStack();
  const rows: Row[] = [];
  try {
    const token = await obtainToken(stack.apiUrl, stack.apiKey);
    const headers = { 'content-type': 'application/json', authorization: `Token ${token}` };
    const baselineDb = createDb(stack.databaseUrl, 40);
    let book = 0;

    for (const profile of ['typical', 'large'] as const) {
      for (const inFlight of [1, 8, 32]) {
        const count = QUICK ? Math.max(inFlight * 3, 12) : profile === 'typical' ? (inFlight === 1 ? 60 : inFlight === 8 ? 300 : 600) : inFlight === 1 ? 20 : 120;
        book++;
        const accounts: Account[] = [...generateBook({ seed: `bench-${profile}-${inFlight}`, count, profile, prefix: `B${book}-` })];

        // Through the service: POST create, then poll the status operation until PROCESSED.
        const latencies: number[] = [];
        const t0 = performance.now();
        await pool(accounts, inFlight, async (a) => {
          const started = performance.now();
          const r = await fetch(`${stack.apiUrl}/v2/data-import/accounts/`, { method: 'POST', headers, body: JSON.stringify(a) });
          if (r.status !== 201) throw new Error(`create answered ${r.status}: ${await r.text()}`);
          for (;;) {
            const s = await fetch(`${stack.apiUrl}/v2/data-import/accounts/${a.import_supplier}/${encodeURIComponent(a.external_account_number)}/`, { headers });
            const body = (await s.json()) as { status: string };
            if (body.status === 'PROCESSED') break;
            if (body.status === 'ERRORED') throw new Error(`import ERRORED: ${JSON.stringify(body)}`);
            await new Promise((res) => setTimeout(res, 50));
          }
          latencies.push(performance.now() - started);
        });
        const seconds = (performance.now() - t0) / 1000;

        // Raw baseline: the store code alone, one transaction per account, same concurrency.
        const baselinePerSecond = await rawBaselinePerSecond(baselineDb, accounts, inFlight);

        latencies.sort((x, y) => x - y);
        const row: Row = {
          profile,
          inFlight,
          accounts: count,
          perSecond: +(count / seconds).toFixed(1),
          p50Ms: Math.round(percentile(latencies, 50)),
          p95Ms: Math.round(percentile(latencies, 95)),
          baselinePerSecond: +baselinePerSecond.toFixed(1),
          ratio: +(baselinePerSecond / (count / seconds)).toFixed(1),
        };
        rows.push(row);
        process.stderr.write(`${JSON.stringify(row)}\n`);
      }
    }
    await baselineDb.destroy();
    const rss = { apiMiB: stack.peakRssMiB(stack.api), workerMiB: stack.peakRssMiB(stack.worker) };
    console.table(rows);
    console.log(`peak RSS: API ${rss.apiMiB} MiB, worker ${rss.workerMiB} MiB`);
    console.log(`written ${writeResult('import', { quick: QUICK, rows, peakRss: rss })}`);
  } finally {
    await stack.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
