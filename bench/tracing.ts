/**
 * bench/tracing (issue "One trace per import"): what tracing costs, in CPU per imported account,
 * side by side in one run — tracing off (no OTLP endpoint: no SDK started), on at 100 % sampling
 * (parentbased_traceidratio, OTEL_TRACES_SAMPLER_ARG=1) and on at the default (no sampler
 * variable: parentbased_traceidratio at DEFAULT_SAMPLER_RATIO, lib/tracing.ts).
 *
 *   npm run bench:tracing        (BENCH_COUNT accounts per run, default 400; BENCH_ROUNDS, default 3)
 *
 * Each run is a fresh stack (bench/lib/stack.ts: its own Temporal dev server, database, stream,
 * and the built worker and API as production runs them, the traced workflow bundle when tracing is
 * on), `data-import migrate` of the same generated typical accounts, CPU of every process read from
 * /proc. The spans go to an OTLP/HTTP receiver in this process (test/support/otlpReceiver.ts) that
 * decodes and counts them (its CPU is this process's, not the service's). The modes run in rounds,
 * each round in another order, so the load of this shared machine drifts over all of them alike;
 * the load average is recorded with every run. Written to bench/results/tracing.json, rendered
 * into bench/RESULTS.md by bench/results.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeBook } from '../cli/generate';
import { runMigration } from '../cli/migrate';
import { startBenchStack, writeResult } from './lib/stack';
import { median as medianOf } from './lib/stats';
import { startOtlpReceiver } from '../test/support/otlpReceiver';
import { DEFAULT_SAMPLER, DEFAULT_SAMPLER_RATIO } from '../lib/tracing';

const COUNT = Number(process.env.BENCH_COUNT ?? 400);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);

type Mode = 'off' | 'on, 100 %' | 'on, default';
const MODES: Mode[] = ['off', 'on, 100 %', 'on, default'];

/** The OTEL_* environment of the service processes in each mode (an empty value is unset). */
function modeEnv(mode: Mode, endpoint: string): Record<string, string> {
  const none = { OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '', OTEL_TRACES_SAMPLER: '', OTEL_TRACES_SAMPLER_ARG: '', OTEL_SDK_DISABLED: '', OTEL_EXPORTER_OTLP_PROTOCOL: '' };
  if (mode === 'off') return none;
  const on = { ...none, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint };
  return mode === 'on, 100 %' ? { ...on, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '1' } : on;
}

interface RunResult {
  mode: Mode;
  round: number;
  loadAverage: number[];
  processed: number;
  accountsPerSecond: number;
  /** CPU ms per account: each process, and the service's total (worker + API + Temporal + PostgreSQL). */
  cpuMsPerAccount: { worker: number; api: number; temporal: number; postgres: number; service: number };
  spansPerAccount: number;
  /** Exported bytes per account (OTLP protobuf, as sent). */
  exportBytesPerAccount: number;
  /** The most frequent span names, per account. */
  spanNames: Record<string, number>;
  peakRssMiB: { worker: number; api: number };
}

async function runOnce(mode: Mode, round: number, input: string, work: string): Promise<RunResult> {
  const sink = await startOtlpReceiver({ keep: false });
  const stack = await startBenchStack({ env: modeEnv(mode, sink.url) });
  let stopped = false;
  try {
    const loadAverage = os.loadavg().map((l) => +l.toFixed(2));
    const cpu0 = stack.cpu();
    const summary = await runMigration({
      input,
      apiUrl: stack.apiUrl,
      apiKey: stack.apiKey,
      concurrency: CONCURRENCY,
      pollIntervalMs: Number(process.env.BENCH_POLL_MS ?? 500),
      progress: 'none',
      statePath: path.join(work, `${round}-${mode}.state.json`),
      reportPrefix: path.join(work, `${round}-${mode}.report`),
    });
    const cpu1 = stack.cpu();
    const peakRssMiB = { worker: stack.peakRssMiB(stack.worker), api: stack.peakRssMiB(stack.api) };
    // The spans still buffered (the batch processors export every 5 s): stop the service, which
    // flushes them on its way out, before counting. Its CPU was read above.
    await stack.stop();
    stopped = true;
    const ms = (k: string) => +(((cpu1[k]! - cpu0[k]!) * 1000) / COUNT).toFixed(1);
    const cpu = { worker: ms('worker'), api: ms('api'), temporal: ms('temporal'), postgres: ms('postgres'), service: 0 };
    cpu.service = +(cpu.worker + cpu.api + cpu.temporal + cpu.postgres).toFixed(1);
    const spans = [...sink.counts.values()].reduce((a, b) => a + b, 0);
    const spanNames = Object.fromEntries(
      [...sink.counts.entries()]
        .map(([name, n]) => [name.replace(/^pg\.query:(\w+).*/, 'pg.query:$1').replace(/^publish \S+/, 'publish <subject>'), n] as const)
        .reduce((m, [name, n]) => m.set(name, (m.get(name) ?? 0) + n), new Map<string, number>())
        .entries(),
    );
    const top = Object.fromEntries(
      Object.entries(spanNames)
        .sort((a, b) => b[1] - a[1])
        .slice(0, 14)
        .map(([k, v]) => [k, +(v / COUNT).toFixed(2)]),
    );
    const r: RunResult = {
      mode,
      round,
      loadAverage,
      processed: summary.counts.PROCESSED ?? 0,
      accountsPerSecond: +summary.accountsPerSecond.toFixed(1),
      cpuMsPerAccount: cpu,
      spansPerAccount: +(spans / COUNT).toFixed(1),
      exportBytesPerAccount: Math.round(sink.bytes / COUNT),
      spanNames: top,
      peakRssMiB,
    };
    console.error(`[tracing] round ${round} ${mode}: ${r.processed}/${COUNT} PROCESSED, ${r.accountsPerSecond}/s, service CPU ${cpu.service} ms/account (worker ${cpu.worker}, api ${cpu.api}, temporal ${cpu.temporal}, postgres ${cpu.postgres}), ${r.spansPerAccount} spans/account, load ${loadAverage.join(' ')}`);
    return r;
  } finally {
    if (!stopped) await stack.stop().catch(() => undefined);
    await sink.close();
  }
}

const median = (xs: number[]) => medianOf(xs, 1);

async function main() {
  const loadAverageAtStart = os.loadavg().map((l) => +l.toFixed(2));
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'di-tracing-'));
  const input = path.join(work, 'book.ndjson');
  await writeBook({ out: input, count: COUNT, seed: 'bench-tracing', profile: 'typical' });
  const runs: RunResult[] = [];
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      // Round 1: off, 100 %, default; round 2 starts one later; ...
      const order = MODES.map((_, i) => MODES[(i + round - 1) % MODES.length]!);
      for (const mode of order) runs.push(await runOnce(mode, round, input, work));
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  const summary = MODES.map((mode) => {
    const mine = runs.filter((r) => r.mode === mode);
    const service = mine.map((r) => r.cpuMsPerAccount.service);
    return {
      mode,
      runs: mine.length,
      serviceCpuMsPerAccount: { median: median(service), min: Math.min(...service), max: Math.max(...service) },
      workerMs: median(mine.map((r) => r.cpuMsPerAccount.worker)),
      apiMs: median(mine.map((r) => r.cpuMsPerAccount.api)),
      temporalMs: median(mine.map((r) => r.cpuMsPerAccount.temporal)),
      postgresMs: median(mine.map((r) => r.cpuMsPerAccount.postgres)),
      spansPerAccount: median(mine.map((r) => r.spansPerAccount)),
      accountsPerSecond: median(mine.map((r) => r.accountsPerSecond)),
    };
  });
  const off = summary[0]!.serviceCpuMsPerAccount.median;
  for (const s of summary) console.log(`${s.mode.padEnd(12)} service CPU ${s.serviceCpuMsPerAccount.median} ms/account (min ${s.serviceCpuMsPerAccount.min}, max ${s.serviceCpuMsPerAccount.max}), ${((100 * (s.serviceCpuMsPerAccount.median - off)) / off).toFixed(1)} % over off; worker ${s.workerMs}, api ${s.apiMs}, temporal ${s.temporalMs}, postgres ${s.postgresMs}; ${s.spansPerAccount} spans/account`);
  const file = writeResult('tracing', {
    accounts: COUNT,
    rounds: ROUNDS,
    concurrency: CONCURRENCY,
    defaultSampler: `${DEFAULT_SAMPLER}, ratio ${DEFAULT_SAMPLER_RATIO}`,
    loadAverageAtStart,
    loadAverageAtEnd: os.loadavg().map((l) => +l.toFixed(2)),
    summary,
    runs,
  });
  console.log(`written ${file}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
