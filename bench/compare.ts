/**
 * bench/compare (issue "Half the CPU per imported account"): the commit before and the commit after,
 * back to back on the same machine in the same run, on the same generated books.
 *
 *   npm run bench:compare -- --before <git-ref> [--after <git-ref>|.] [--count N] [--large-count N] [--full-count N] [--profiles typical,large,full] [--stacks memory,as-run]
 *
 * Each side is a checkout: `.` is this working tree; a ref is a detached worktree under
 * data/bench/trees/<sha> (kept for the next run), node_modules linked from here when its
 * package-lock.json is the same (else `npm ci`), then built with its own `npm run build`. Each side
 * runs on a stack of its own (bench/lib/stack.ts with `root`): fresh database migrated and seeded
 * by that checkout's code, fresh Temporal dev server (`--stacks`: `memory`, in memory as the other
 * benchmarks run it, and/or `as-run`, on a SQLite file with the pragmas `npm run up` gives it: the
 * stack a user of the README's first command gets; default both), its worker and API, and its own
 * `data-import migrate` as a separate process, so that every process's CPU is read from /proc.
 * Each side also reports what the import left in PostgreSQL (bench/lib/pgStorage.ts: relation growth
 * and row bytes per account) and, once its stack is down, its validator's time on the same book
 * (bench/lib/validationTime.ts). Under the tables: the targets of issue 35 (a typical account's CPU
 * within 5 % of before, a full account's at most twice a typical one's, a full account validated
 * in under 2 ms) and the storage per full account.
 * BENCH_BEFORE_ENV / BENCH_AFTER_ENV (`KEY=VALUE,...`): settings of that side's service processes
 * only, recorded with the result — the same tree twice with a setting off and on
 * (`--before . --after .`, e.g. BENCH_AFTER_ENV=OUTBOX_BATCH_SIZE=50).
 * Figures: bench/NOTES.md "bench:compare"; written to bench/results/compare.json, rendered into
 * bench/RESULTS.md by bench/results.ts.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import type { Knex } from 'knex';
import os from 'node:os';
import path from 'node:path';
import { createDb } from '../db/knex';
import { generateBook, writeBook } from '../cli/generate';
import { peakRssMiB, startBenchStack, temporalRequests, temporalSqlitePragmas, writeResult, type BenchStack } from './lib/stack';
import { rawBaselinePerSecond, withFreshDatabase } from './lib/baseline';
import { readStatements, resetStatements } from './lib/pgStatements';
import { compareRows, compareTargets, type Commit, type ProfileRun, type SideResult } from './lib/compareTable';
import { relationSizes, storageReport } from './lib/pgStorage';
import { validationTime } from './lib/validationTime';

const HERE = path.resolve(__dirname, '..');
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);

type StackKind = 'memory' | 'as-run';
type BenchProfile = 'typical' | 'large' | 'full';
const BENCH_PROFILES: readonly BenchProfile[] = ['typical', 'large', 'full'];

function args(argv: string[]): { before: string; after: string; counts: Record<BenchProfile, number>; profiles: BenchProfile[]; stacks: StackKind[] } {
  const o: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('--')) throw new Error(`unexpected argument ${a}`);
    const [k, v] = a.includes('=') ? [a.slice(2, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a.slice(2), argv[++i]];
    if (v === undefined) throw new Error(`--${k} needs a value`);
    o[k] = v;
  }
  const before = o.before ?? process.env.BENCH_BEFORE;
  if (!before) throw new Error('usage: bench:compare -- --before <git-ref> [--after <git-ref>|.] [--count N] [--large-count N] [--full-count N] [--profiles typical,large,full]');
  const profiles = (o.profiles ?? process.env.BENCH_PROFILES ?? 'typical,large,full').split(',').map((p) => p.trim()) as BenchProfile[];
  for (const p of profiles) if (!BENCH_PROFILES.includes(p)) throw new Error(`unknown profile ${p} (${BENCH_PROFILES.join(', ')})`);
  const stacks = (o.stacks ?? process.env.BENCH_STACKS ?? 'memory,as-run').split(',').map((p) => p.trim()) as StackKind[];
  for (const k of stacks) if (k !== 'memory' && k !== 'as-run') throw new Error(`unknown stack ${k} (memory, as-run)`);
  return {
    stacks,
    before,
    after: o.after ?? process.env.BENCH_AFTER ?? '.',
    counts: {
      typical: Number(o.count ?? process.env.BENCH_COUNT ?? 1000),
      large: Number(o['large-count'] ?? process.env.BENCH_LARGE_COUNT ?? 300),
      full: Number(o['full-count'] ?? process.env.BENCH_FULL_COUNT ?? 300),
    },
    profiles,
  };
}

/** BENCH_BEFORE_ENV / BENCH_AFTER_ENV: `KEY=VALUE,...`. */
function sideEnv(name: 'BENCH_BEFORE_ENV' | 'BENCH_AFTER_ENV'): Record<string, string> {
  const v = process.env[name]?.trim();
  if (!v) return {};
  return Object.fromEntries(
    v.split(',').map((pair) => {
      const i = pair.indexOf('=');
      if (i <= 0) throw new Error(`${name}: expected KEY=VALUE,..., got ${pair}`);
      return [pair.slice(0, i).trim(), pair.slice(i + 1).trim()];
    }),
  );
}

/**
 * ms until no event waits for the relay and no account for the digest filler (tables a tree does
 * not have count as empty), at most `timeoutMs`.
 */
async function deferredWorkDone(db: Knex, timeoutMs: number): Promise<number> {
  const t0 = Date.now();
  const waiting = async (table: string) => {
    try {
      return Number((await db(table).count<{ n: string }[]>('* as n'))[0]!.n);
    } catch {
      return 0;
    }
  };
  while (Date.now() - t0 < timeoutMs && (await waiting('outbox_pending')) + (await waiting('account_digest_pending')) > 0) await new Promise((r) => setTimeout(r, 100));
  return Date.now() - t0;
}

const git = (cwd: string, ...a: string[]) => execFileSync('git', a, { cwd, stdio: ['ignore', 'pipe', 'pipe'] }).toString().trim();

function run(cmd: string, a: string[], cwd: string): void {
  console.error(`[compare] ${path.relative(HERE, cwd) || '.'}: ${cmd} ${a.join(' ')}`);
  execFileSync(cmd, a, { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
}

/** The checkout of one side, built. */
function prepareTree(ref: string, buildHere: boolean): { root: string; commit: Commit } {
  if (ref === '.') {
    const commit = { ref: '.', sha: git(HERE, 'rev-parse', 'HEAD'), subject: git(HERE, 'log', '-1', '--format=%s'), dirty: git(HERE, 'status', '--porcelain', '--untracked-files=no') !== '' };
    if (buildHere) run('npm', ['run', 'build', '--silent'], HERE);
    return { root: HERE, commit };
  }
  const sha = git(HERE, 'rev-parse', '--verify', `${ref}^{commit}`);
  const commit = { ref, sha, subject: git(HERE, 'log', '-1', '--format=%s', sha) };
  const root = path.join(HERE, 'data', 'bench', 'trees', sha);
  if (!fs.existsSync(path.join(root, 'package.json'))) {
    fs.mkdirSync(path.dirname(root), { recursive: true });
    git(HERE, 'worktree', 'prune');
    run('git', ['worktree', 'add', '--detach', root, sha], HERE);
  }
  const modules = path.join(root, 'node_modules');
  if (!fs.existsSync(modules)) {
    const same = fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8') === fs.readFileSync(path.join(HERE, 'package-lock.json'), 'utf8');
    if (same) fs.symlinkSync(path.join(HERE, 'node_modules'), modules, 'dir');
    else run('npm', ['ci', '--no-audit', '--no-fund'], root);
  }
  // The checkout is of a fixed commit: built once, kept with the mark.
  const mark = path.join(root, 'dist', '.bench-built');
  if (!fs.existsSync(mark) || !fs.existsSync(path.join(root, 'dist', 'workflow-bundle.js'))) {
    run('npm', ['run', 'build', '--silent'], root);
    fs.writeFileSync(mark, `${sha}\n`);
  }
  return { root, commit };
}

/** CPU seconds of this process's waited-for children (the migrate client, once it has exited). */
function childrenCpuSeconds(): number {
  const f = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[13]) + Number(f[14])) / 100;
}

/** `data-import migrate` of that checkout, as a separate process; its report's summary. */
async function migrateClient(stack: BenchStack, input: string, prefix: string): Promise<{ summary: Record<string, any>; cpuSeconds: number }> {
  const a = [path.join(stack.root, 'dist/cli/main.js'), 'migrate', '--input', input, '--api-url', stack.apiUrl, '--concurrency', String(CONCURRENCY), '--progress', 'none', '--report', prefix, '--state', `${prefix}.state.json`];
  if (process.env.BENCH_POLL_MS) a.push('--poll-interval', process.env.BENCH_POLL_MS);
  const cpu0 = childrenCpuSeconds();
  const child = spawn(process.execPath, a, { cwd: stack.root, env: { ...process.env, DATA_IMPORT_API_KEY: stack.apiKey }, stdio: ['ignore', 'ignore', 'inherit'] });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (c) => resolve(c));
  });
  // 0: every account PROCESSED; 2: some were not (the report says which, the table shows it).
  if (code !== 0 && code !== 2) throw new Error(`data-import migrate exited with ${code}`);
  const report = JSON.parse(fs.readFileSync(`${prefix}.json`, 'utf8')) as { summary: Record<string, any> };
  return { summary: report.summary, cpuSeconds: childrenCpuSeconds() - cpu0 };
}

/** The raw baseline: the same accounts through the create store code alone (this tree's), one transaction per account. */
async function rawBaseline(profile: BenchProfile, count: number, seed: string): Promise<number> {
  return withFreshDatabase('baseline', CONCURRENCY + 2, async (db) => +(await rawBaselinePerSecond(db, [...generateBook({ seed, count, profile })], CONCURRENCY)).toFixed(1));
}

/** The stack running now: Ctrl-C stops it (processes, stream, database) before leaving. */
let running: BenchStack | null = null;

async function runSide(root: string, commit: Commit, input: string, count: number, baseline: number, work: string, label: string, temporal: StackKind, env: Record<string, string>): Promise<SideResult> {
  console.error(`[compare] ${label}: ${commit.sha.slice(0, 7)} ${commit.subject}${Object.keys(env).length ? ` with ${Object.entries(env).map(([k, v]) => `${k}=${v}`).join(' ')}` : ''}`);
  const stack = await startBenchStack({ root, temporal, env });
  running = stack;
  try {
    const statsDb = createDb(stack.databaseUrl, 1);
    const statements0 = await resetStatements(statsDb);
    const sizes0 = await relationSizes(statsDb);
    const t0 = await temporalRequests(stack.temporalMetricsUrl);
    const cpu0 = stack.cpu();
    const { summary, cpuSeconds: clientCpu } = await migrateClient(stack, input, path.join(work, label));
    // The work the service defers past an import (the relay's publications, the digest filler's
    // stored digests) is counted on both sides alike: the window ends once it is done.
    const settledMs = await deferredWorkDone(statsDb, 120_000);
    const cpu1 = stack.cpu();
    const t1 = await temporalRequests(stack.temporalMetricsUrl);
    const rss = { worker: peakRssMiB(stack.worker.pid!), api: peakRssMiB(stack.api.pid!) };
    const statements = statements0.available ? await readStatements(statsDb, count, 10) : statements0;
    const storage = await storageReport(statsDb, sizes0, summary.counts?.PROCESSED ?? 0);
    await statsDb.destroy();

    const ms = (k: string) => Math.round(((cpu1[k]! - cpu0[k]!) * 1000) / count);
    const cpu = { worker: ms('worker'), temporal: ms('temporal'), postgres: ms('postgres'), api: ms('api'), client: Math.round((clientCpu * 1000) / count), total: 0 };
    cpu.total = cpu.worker + cpu.temporal + cpu.postgres + cpu.api + cpu.client;
    const per = (n: number) => +(n / count).toFixed(2);
    const delta = Object.fromEntries(Object.keys(t1.byOperation).map((k) => [k, (t1.byOperation[k] ?? 0) - (t0.byOperation[k] ?? 0)]).filter(([, v]) => (v as number) > 0)) as Record<string, number>;
    const sum = (keys: string[]) => keys.reduce((s, k) => s + delta[k]!, 0);
    const byOperation = Object.fromEntries(
      Object.entries(delta)
        .sort((a, b) => b[1] - a[1])
        .slice(0, 12)
        .map(([k, v]) => [k, per(v)]),
    );
    const accountsPerSecond = Number(summary.accountsPerSecond);
    return {
      commit,
      accounts: count,
      processed: summary.counts?.PROCESSED ?? 0,
      counts: summary.counts ?? {},
      accountsPerSecond,
      latencyMs: { p50: summary.latencyMs?.p50, p95: summary.latencyMs?.p95 },
      orchestrationRatio: +(baseline / accountsPerSecond).toFixed(2),
      cpuMsPerAccount: cpu,
      peakRssMiB: rss,
      statements,
      temporalRequests: {
        perAccount: per(sum(Object.keys(delta))),
        frontendPerAccount: per(sum(Object.keys(delta).filter((k) => k.startsWith('frontend.')))),
        persistencePerAccount: per(t1.persistence - t0.persistence),
        byOperation,
      },
      durationMs: summary.durationMs,
      settledAfterMs: settledMs,
      storage,
      ...(Object.keys(env).length && { env }),
    };
  } finally {
    running = null;
    await stack.stop();
  }
}

function printTable(rows: Record<string, unknown>[]): void {
  const cols = Object.keys(rows[0]!);
  const width = cols.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)));
  const line = (cells: unknown[]) => cells.map((c, i) => (i === 0 ? String(c).padEnd(width[i]!) : String(c).padStart(width[i]!))).join('  ');
  console.log(line(cols));
  for (const r of rows) console.log(line(cols.map((c) => r[c])));
}

/** BENCH_COMPARE_NAME=compare-<name>: kept beside the main record (bench/results/compare.json), a section of its own in RESULTS.md. */
function resultName(): string {
  const name = process.env.BENCH_COMPARE_NAME ?? 'compare';
  if (!/^compare(-[a-z0-9-]+)?$/.test(name)) throw new Error(`BENCH_COMPARE_NAME: expected compare or compare-<name>, got ${name}`);
  return name;
}

async function main() {
  const o = args(process.argv.slice(2));
  resultName();
  const loadAverageAtStart = os.loadavg().map((l) => +l.toFixed(2));
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      console.error(`[compare] ${signal}: stopping the stack`);
      void (running?.stop() ?? Promise.resolve()).finally(() => process.exit(130));
    });
  }
  // `npm run bench:compare` has just built this tree.
  const builtHere = process.env.npm_lifecycle_event === 'bench:compare';
  const before = prepareTree(o.before, !builtHere);
  const after = prepareTree(o.after, !builtHere && o.before !== '.');
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'di-compare-'));
  const profiles: Record<string, ProfileRun> = {};
  try {
    for (const profile of o.profiles) {
      const count = o.counts[profile];
      const seed = `bench-compare-${profile}`;
      const input = path.join(work, `${profile}.ndjson`);
      await writeBook({ out: input, count, seed, profile });
      console.error(`[compare] ${profile}: ${count} accounts; raw baseline`);
      const baseline = await rawBaseline(profile, count, seed);
      // With no stack running: each side's validator on the same book.
      console.error(`[compare] ${profile}: validation time, before and after`);
      const validation = { before: validationTime(before.root, input, count), after: validationTime(after.root, input, count) };
      // In memory first (the key the floor section reads is the profile's name), then as run.
      for (const kind of o.stacks) {
        const key = kind === 'memory' ? profile : `${profile}, as run`;
        const b = { ...(await runSide(before.root, before.commit, input, count, baseline, work, `${profile}-${kind}-before`, kind, sideEnv('BENCH_BEFORE_ENV'))), validation: validation.before };
        const a = { ...(await runSide(after.root, after.commit, input, count, baseline, work, `${profile}-${kind}-after`, kind, sideEnv('BENCH_AFTER_ENV'))), validation: validation.after };
        profiles[key] = { profile, stack: kind, accounts: count, seed, baselinePerSecond: baseline, before: b, after: a };
        console.log(`\n${key}: ${count} accounts, ${CONCURRENCY} in flight — before ${b.commit.sha.slice(0, 7)} (${b.commit.subject}), after ${a.commit.sha.slice(0, 7)}${a.commit.dirty ? ' + uncommitted changes' : ''} (${a.commit.subject})\n`);
        printTable(compareRows(b, a, baseline));
      }
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  const targets = compareTargets(profiles);
  if (targets.length > 0) {
    console.log('\nTargets (issue 35):');
    for (const t of targets) console.log(`- ${t.figure}: ${t.value}${t.target ? ` (target ${t.target}: ${t.met ? 'met' : 'not met'})` : ''}`);
  }
  const file = writeResult(resultName(), {
    before: before.commit,
    after: after.commit,
    concurrency: CONCURRENCY,
    pollIntervalMs: process.env.BENCH_POLL_MS ? Number(process.env.BENCH_POLL_MS) : 'each tree’s default',
    temporalSqlitePragmas: temporalSqlitePragmas(),
    loadAverageAtStart,
    loadAverageAtEnd: os.loadavg().map((l) => +l.toFixed(2)),
    profiles,
    targets,
  });
  console.log(`\nwritten ${file}`);
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
