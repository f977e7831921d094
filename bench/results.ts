/**
 * Writes bench/RESULTS.md from the figures the benchmarks left in bench/results/*.json
 * (`npm run bench` runs them all, then this).
 */
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { machine } from './lib/stack';
import { scaleSections } from './scaleReport';
import { reconcileSection } from './reconcileReport';
import { compareRows } from './lib/compareTable';

const dir = path.join(__dirname, 'results');
const read = (name: string): Record<string, any> | null => {
  const f = path.join(dir, `${name}.json`);
  return fs.existsSync(f) ? JSON.parse(fs.readFileSync(f, 'utf8')) : null;
};

function table(rows: Record<string, unknown>[]): string {
  if (rows.length === 0) return '_no rows_\n';
  const cols = Object.keys(rows[0]!);
  const line = (cells: unknown[]) => `| ${cells.map((c) => String(c ?? '')).join(' | ')} |`;
  return [line(cols), line(cols.map(() => '---')), ...rows.map((r) => line(cols.map((c) => r[c])))].join('\n') + '\n';
}

function version(cmd: string, args: string[]): string {
  try {
    return execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim().split('\n')[0]!;
  } catch {
    return 'unknown';
  }
}

/** The CPUs the result files were measured on (CI and sessions land on machines of either kind), each with its files. */
function recordedCpus(): string {
  const byCpu = new Map<string, string[]>();
  for (const name of fs.readdirSync(dir).filter((x) => x.endsWith('.json')).sort().map((f) => f.slice(0, -'.json'.length))) {
    const cpu: unknown = read(name)?.machine?.cpu;
    if (typeof cpu === 'string') byCpu.set(cpu, [...(byCpu.get(cpu) ?? []), name]);
  }
  return [...byCpu.entries()].map(([cpu, files]) => `${cpu}: ${files.join(', ')}`).join('; ');
}

function main() {
  const m = machine();
  const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8'));
  const out: string[] = [];
  out.push('# Benchmark results\n');
  out.push(`Written ${new Date().toISOString()} by \`npm run bench:results\` from \`bench/results/*.json\`. Re-run any figure with the command named in its section.\n`);
  out.push('## Machine and versions\n');
  out.push(table([
    { what: 'CPU', value: `${m.cpu} (where this page was written); the figures' runs: ${recordedCpus()}` },
    { what: 'memory', value: m.memory },
    { what: 'OS', value: m.os },
    { what: 'Node', value: m.node },
    { what: 'PostgreSQL', value: version('psql', ['--version']) },
    { what: 'nats-server', value: version('nats-server', ['--version']) },
    { what: 'temporal CLI', value: version(path.join(__dirname, '..', '.venv/bin/temporal'), ['--version']) },
    { what: '@temporalio/worker', value: pkg.dependencies['@temporalio/worker'] },
  ]));

  const v = read('validate');
  out.push('## Validation — `npm run bench:validate`\n');
  if (v) {
    out.push(`Measured ${v.date}. In-process (validate() on a parsed body):\n`);
    out.push(table(v.inProcess));
    if (v.http) {
      out.push('\nOver HTTP (API process, autocannon, 16 connections, JSON parse + auth + validation):\n');
      out.push(table(v.http.map((h: Record<string, number>, i: number) => ({ ...h, 'share of in-process': `${Math.round((h['requests/s']! / v.inProcess[i]['validations/s']) * 100)} %` }))));
    }
  } else out.push('_not run yet_\n');

  const e = read('events');
  out.push('\n## Events — `npm run bench:events`\n');
  out.push(e ? `Measured ${e.date}.\n\n` + table(Array.isArray(e.rows) ? e.rows : [e]) : '_not run yet_\n');

  const i = read('import');
  out.push('\n## Import workflow — `npm run bench:import`\n');
  if (i) {
    out.push(`Measured ${i.date}${i.quick ? ' (quick run)' : ''}. Create → PROCESSED through the API, Temporal dev server and worker as separate processes; baseline = the create store code alone, one transaction per account, same concurrency; ratio = baseline ÷ service throughput.\n\n`);
    out.push(table(i.rows));
    out.push(`\nPeak RSS during the run: API ${i.peakRss.apiMiB} MiB, worker ${i.peakRss.workerMiB} MiB.\n`);
  } else out.push('_not run yet_\n');

  const x = read('e2e');
  out.push('\n## Whole book — `npm run bench:e2e`\n');
  if (x) {
    out.push(`Measured ${x.date}: \`data-import migrate\` of ${x.accounts} generated typical accounts, ${x.concurrency} in flight.\n\n`);
    out.push(table([
      { figure: 'accounts PROCESSED', value: x.processed },
      { figure: 'accounts/s end to end', value: x.accountsPerSecond },
      { figure: 'p50 create→PROCESSED (ms, poll resolution 100 ms)', value: x.latencyMs?.p50 },
      { figure: 'p95 create→PROCESSED (ms)', value: x.latencyMs?.p95 },
      { figure: 'raw baseline accounts/s (store code only)', value: x.baselinePerSecond },
      { figure: 'orchestration cost (baseline ÷ end to end)', value: `${x.ratio}×` },
      { figure: 'peak RSS API (MiB)', value: x.peakRss.apiMiB },
      { figure: 'peak RSS worker (MiB)', value: x.peakRss.workerMiB },
    ]));
    out.push(`\nTargets: ≥ 25 accounts/s, ≤ 3× the baseline, API and worker each < 300 MB RSS.\n`);
  } else out.push('_not run yet_\n');

  const c = read('compare');
  out.push(...compareSection(c, '## Before and after — `npm run bench:compare`', table));
  // Other runs kept beside it (BENCH_COMPARE_NAME=compare-<name>): each a section of its own.
  for (const f of fs.readdirSync(dir).filter((n) => /^compare-.+\.json$/.test(n)).sort()) {
    const name = f.slice(0, -'.json'.length);
    out.push(...compareSection(read(name), `## Before and after — \`npm run bench:compare\` (${name.slice('compare-'.length)})`, table));
  }

  out.push(...floorSection(read('floor'), c, table));

  const l = read('listing');
  out.push('\n## Per-supplier listing — `npm run bench:listing`\n');
  if (l) {
    out.push(`Measured ${l.date} on a busy shared machine (2 cores, other benchmarks and test runs at the same time: throughput varies run to run; the memory figures are what this proves). ${l.rows} import processes inserted directly (INSERT … SELECT generate_series, ${l.insertSeconds} s, half of them with an account) into the benchmark's own database, then \`GET /v1/data-import/all-account-import-processes/<supplier>/\` streamed whole over HTTP from the API process:\n\n`);
    out.push(table(l.stream));
    if (l.paged) out.push(`\nThe same listing page by page (limit ${l.paged.pageSize}, after from Link rel="next"): ${l.paged.pages} pages in ${l.paged.seconds} s, ${l.paged['rows/s']} rows/s; API peak RSS ${l.paged['API peak RSS (VmHWM) MiB']} MiB.\n`);
    out.push(`\nThe API's resident memory stays flat while the whole listing passes through it (a database cursor read 1,000 rows at a time, written in 32 KiB chunks, paced by the client): the peak does not grow with the number of rows, and a client that stops reading makes the API stop reading PostgreSQL rather than buffer.\n`);
  } else out.push('_not run yet_\n');

  const o = read('ops');
  out.push('\n## Operations page queries — `npm run bench:ops`\n');
  if (o) {
    out.push(`Measured ${o.date} on ${o.machine.cpu}, ${o.machine.os}, a machine shared with other work (figures are upper bounds): ${o.rows.toLocaleString('en')} generated import processes of one supplier (72 % PROCESSED over 24 h, 12 % PENDING, 7 % ERRORED over 6 codes, …) plus 20,000 of a second, loaded in ${o.loadSeconds} s with INSERT ... SELECT generate_series, roll-ups rebuilt in ${o.rebuildSeconds} s; each query run ${o.runs} times after a warm-up. Target: < 200 ms.\n\n`);
    out.push(table(o.queries));
    out.push(`\nCost of the roll-up triggers on a status change (2,000 UPDATEs PENDING → PROCESSED, each in its own transaction as the worker makes them, \`synchronous_commit = off\` so the ~10 ms WAL flush of each commit does not hide the difference): ${o.transitionMicros.withoutTriggers} µs per transition without the triggers, ${o.transitionMicros.withTriggers} µs with them: the difference is within the run-to-run noise of this shared machine (the triggers do two or three single-row upserts per transition).\n`);
  } else out.push('_not run yet_\n');

  out.push(...scaleSections(read('scale'), read('outbox-bloat'), table));

  out.push(...tracingSection(read('tracing'), table));

  out.push(...reconcileSection(read('reconcile'), table));

  const notes = path.join(__dirname, 'NOTES.md');
  if (fs.existsSync(notes)) out.push('\n' + fs.readFileSync(notes, 'utf8'));
  fs.writeFileSync(path.join(__dirname, 'RESULTS.md'), out.join('\n'));
  console.log('written bench/RESULTS.md');
}


/** bench/tracing.ts: CPU per account with tracing off, on at 100 % and on at the default ratio, side by side. */
function tracingSection(t: Record<string, any> | null, table: (rows: Record<string, unknown>[]) => string): string[] {
  const out = ['\n## Tracing — `npm run bench:tracing`\n'];
  if (!t?.summary) return [...out, '_not run yet_\n'];
  out.push(`Measured ${t.date}${t.machine?.cpu ? ` on ${t.machine.cpu}` : ''}: \`data-import migrate\` of ${t.accounts} generated typical accounts (${t.concurrency} in flight) through a fresh stack per run (built worker and API, Temporal dev server, database, stream), ${t.rounds} rounds of the three modes, each round in another order; spans exported over OTLP/HTTP (protobuf) to a receiver in the benchmark process that decodes and counts them. Service CPU = worker + API + Temporal + PostgreSQL (PostgreSQL's is every postgres process of this shared machine: the noisiest figure). Load average ${t.loadAverageAtStart?.join(' / ')} at the start, ${t.loadAverageAtEnd?.join(' / ')} at the end. Default sampler: ${t.defaultSampler}.\n\n`);
  const off = t.summary[0].serviceCpuMsPerAccount.median as number;
  const offWorker = t.summary[0].workerMs as number;
  out.push(
    table(
      t.summary.map((s: Record<string, any>) => ({
        tracing: s.mode,
        runs: s.runs,
        'service CPU ms/account, median (min–max)': `${s.serviceCpuMsPerAccount.median} (${s.serviceCpuMsPerAccount.min}–${s.serviceCpuMsPerAccount.max})`,
        'over off': s.mode === 'off' ? '' : `${s.serviceCpuMsPerAccount.median - off >= 0 ? '+' : ''}${((100 * (s.serviceCpuMsPerAccount.median - off)) / off).toFixed(1)} %`,
        'worker ms': s.workerMs,
        'worker over off': s.mode === 'off' ? '' : `${((100 * (s.workerMs - offWorker)) / offWorker).toFixed(1)} %`,
        'API ms': s.apiMs,
        'Temporal ms': s.temporalMs,
        'PostgreSQL ms': s.postgresMs,
        'spans/account': s.spansPerAccount,
        'accounts/s': s.accountsPerSecond,
      })),
    ),
  );
  out.push('\nEvery run, in the order it ran (the load average when it began):\n\n');
  out.push(
    table(
      t.runs.map((r: Record<string, any>) => ({
        round: r.round,
        tracing: r.mode,
        load: r.loadAverage.join(' '),
        PROCESSED: r.processed,
        'service ms': r.cpuMsPerAccount.service,
        worker: r.cpuMsPerAccount.worker,
        API: r.cpuMsPerAccount.api,
        Temporal: r.cpuMsPerAccount.temporal,
        PostgreSQL: r.cpuMsPerAccount.postgres,
        'spans/account': r.spansPerAccount,
        'export bytes/account': r.exportBytesPerAccount,
      })),
    ),
  );
  const full = t.runs.find((r: Record<string, any>) => r.mode === 'on, 100 %');
  if (full) out.push(`\nSpans per account at 100 % (one run; the migrate client's status polls are requests of their own, traced too): ${Object.entries(full.spanNames as Record<string, number>).map(([k, v]) => `${k} ${v}`).join(', ')}.\n`);
  out.push('\nTargets: off costs nothing measurable; on at 100 % at most 10 % more CPU per account. What the figures say: docs/tracing.md "What it costs".\n');
  return out;
}

/** One bench:compare run (bench/compare.ts): its two sides per profile and stack. */
function compareSection(c: Record<string, any> | null, heading: string, table: (rows: Record<string, unknown>[]) => string): string[] {
  const out = [`\n${heading}\n`];
  if (!c) return [...out, '_not run yet_\n'];
  const commit = (k: Record<string, any>) => `\`${String(k.sha).slice(0, 7)}\` ${k.subject}${k.dirty ? ' (plus uncommitted changes of the working tree)' : ''}`;
  out.push(`Measured ${c.date}, both sides back to back on this machine, the same generated books, ${c.concurrency} in flight, client poll interval ${c.pollIntervalMs}; load average ${c.loadAverageAtStart?.join(' / ')} at the start, ${c.loadAverageAtEnd?.join(' / ')} at the end.\n`);
  out.push(`- before: ${commit(c.before)}\n- after: ${commit(c.after)}\n`);
  const stackOf = (p: Record<string, any>) =>
    p.stack === 'as-run'
      ? `, on the stack as \`npm run up\` runs it: Temporal dev server on a SQLite file (${(c.temporalSqlitePragmas as string[] | undefined)?.join(', ') || 'SQLite defaults'})`
      : p.stack === 'memory'
        ? ', Temporal dev server in memory'
        : '';
  for (const [key, p] of Object.entries(c.profiles as Record<string, any>)) {
    out.push(`\n### ${p.profile ?? key} accounts (${p.accounts})${stackOf(p)}\n`);
    out.push(table(compareRows(p.before, p.after, p.baselinePerSecond)));
    const memory = p.stack === 'as-run' ? c.profiles[p.profile] : null;
    if (memory) {
      const ratio = (side: 'before' | 'after') => (p[side].cpuMsPerAccount.total / memory[side].cpuMsPerAccount.total).toFixed(2);
      out.push(`\nAs run against in memory, CPU per account (all processes): before ×${ratio('before')}, after ×${ratio('after')} (target: within 10 %, ×1.10).\n`);
    }
    for (const side of ['before', 'after'] as const) if (!p[side].statements.available) out.push(`\n${side}: PostgreSQL statements not counted: ${p[side].statements.reason}\n`);
  }
  const targets = (c.targets ?? []) as { figure: string; value: string; target?: string; met?: boolean }[];
  if (targets.length > 0) {
    out.push('\nTargets (issue 35):\n');
    for (const t of targets) out.push(`- ${t.figure}: ${t.value}${t.target ? ` (target ${t.target}: **${t.met ? 'met' : 'not met'}**)` : ''}`);
    out.push('');
  }
  out.push('\nWhat each figure means: bench/NOTES.md "bench:compare".\n');
  return out;
}

/**
 * The floor of bench/floor.ts, and what share of the before figure of the compare run it already
 * is (both written by the same `npm run bench`).
 */
function floorSection(f: Record<string, any> | null, c: Record<string, any> | null, table: (rows: Record<string, unknown>[]) => string): string[] {
  const out = ['\n## The floor of the design — `npm run bench:floor`\n'];
  if (!f?.profiles) return [...out, '_not run yet_\n'];
  out.push(`Measured ${f.date}: ${f.orchestration.imports} imports whose steps do nothing (the service's workflow bundle, worker options and start, on a Temporal dev server of their own; ${f.concurrency} in flight), then accounts of each profile through insertAccount alone. What any import costs before the service validates, records or publishes anything. Orchestration alone: ${f.orchestration.importsPerSecond} imports/s, ${f.orchestration.temporalFrontendRequestsPerImport} Temporal frontend and ${f.orchestration.temporalPersistenceRequestsPerImport} persistence requests per import.\n`);
  for (const [profile, p] of Object.entries(f.profiles as Record<string, any>)) {
    out.push(`\n### ${profile} accounts (the account write: ${p.accountWrite.accounts} accounts, ${p.accountWrite.accountsPerSecond}/s)\n`);
    out.push(table(p.parts.map((x: { part: string; ms: number }) => ({ part: x.part, 'CPU ms per account': x.ms }))));
    out.push(`\nFloor: **${p.totalMsPerAccount} ms** of CPU per account, at most ${p.ceilingAccountsPerSecond} accounts/s on ${f.cores} cores.`);
    const side = c?.profiles?.[profile];
    if (side) {
      const before = side.before.cpuMsPerAccount.total as number;
      const after = side.after.cpuMsPerAccount.total as number;
      out.push(` Against the compare run above: before ${before} ms, after ${after} ms; the floor alone is **${Math.round((100 * p.totalMsPerAccount) / before)} %** of the before figure (the target is 55 %), and the after figure is the floor plus ${+(after - p.totalMsPerAccount).toFixed(1)} ms of the service's own work (bench/NOTES.md "The floor").`);
    }
    out.push('\n');
  }
  return out;
}

main();
