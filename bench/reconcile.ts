/**
 * Reconciliation benchmark (issue 25): `data-import reconcile` of a whole book against a database
 * holding RECONCILE_SIZE imported accounts (default 250,000), loaded as `bench:scale` loads it
 * (bench/scale.ts bulkLoad: 2,000 seed accounts through the store's insertAccount, every later one
 * a copy made inside PostgreSQL). Target: at least 1,000 accounts per second over the API, with
 * the client's memory bounded whatever the book's size (≤ 300 MiB RSS).
 *
 *   npm run bench:reconcile                          (250,000 accounts)
 *   RECONCILE_SIZE=20000 npm run bench:reconcile     (a quick run)
 *
 * The book: the seed accounts read back once from the tables, then for each account n the copy
 * bench:scale made of its seed (the per-copy values of PER_COPY_UNIQUE that the payload holds:
 * customer and administrator e-mails, meter point identifiers, meter serials, reference values,
 * and the external account number), written as NDJSON. Every account is expected to match: a
 * figure of a run where one does not is not a reconciliation figure, and the run fails.
 * The client runs as its own process (`bin/data-import reconcile`, the build), its peak RSS
 * (VmHWM) read from /proc while it runs; the API's CPU is read from the stack.
 * RECONCILE_CLIENT_NODE_OPTIONS: NODE_OPTIONS of the client (e.g. '--max-old-space-size=192'); a run
 * replaces the earlier one of the same size, options, RECONCILE_DIGESTS and RECONCILE_VARIANT (a label
 * of the code measured, for the table; default: this commit).
 * Results: bench/results/reconcile.json; `npm run bench:results` puts them into bench/RESULTS.md.
 *
 * The whole book is signed off as the whole supplier (`--extras list`: the listing of the
 * supplier's accounts is read too, and must find none outside the book).
 *
 * A tranche (issue 40): RECONCILE_TRANCHE=1000 RECONCILE_SIZE=101000 npm run bench:reconcile
 * loads RECONCILE_SIZE accounts, stores the digests of the first RECONCILE_TRANCHE only and
 * reconciles the book of those (the supplier holding the others): with the default `--extras
 * count` (exit 0 expected: every account of the tranche matched, the others counted by one totals
 * request), then with `--extras list` (exit 3 expected: the others listed, 10,000 a page). Target:
 * under 5 s for the first. Printed, and kept in the results file as a `tranche` row.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { createDb } from '../db/knex';
import { loadAccountsByExternal } from '../db/stores/accountStore';
// The build's, as the API runs it: a stored digest names the code that computed it (its form), and
// the API answers only from digests of its own form.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { accountDigests } = require('../dist/db/stores/accountDigests') as typeof import('../db/stores/accountDigests');
import { bulkLoad, SEED_COUNT } from './scale';
import { startBenchStack, writeResult } from './lib/stack';

const SIZE = Number(process.env.RECONCILE_SIZE ?? 250_000);
const CONCURRENCY = Number(process.env.RECONCILE_CONCURRENCY ?? 4);
/** NODE_OPTIONS of the client process (e.g. a heap cap, as the service processes have: lib/nodeOptions.ts); default none. */
const CLIENT_NODE_OPTIONS = process.env.RECONCILE_CLIENT_NODE_OPTIONS ?? '';
/**
 * RECONCILE_DIGESTS=stored (default): after the bulk load, every account's digest is stored as the
 * workers' digest filler stores it for an imported account (bulk-loaded copies bypass the create
 * that queues them), timed apart;
 * `missing`: left out, so the reconcile is the first one after a load that bypassed the create (the
 * bulk operation reads every account back, hashes and stores it).
 */
const DIGESTS = process.env.RECONCILE_DIGESTS ?? 'stored';
/** RECONCILE_TRANCHE=n: the book is the first n accounts only (the supplier holds SIZE). */
const TRANCHE = process.env.RECONCILE_TRANCHE ? Number(process.env.RECONCILE_TRANCHE) : null;
/** Accounts of the book. */
const BOOK = TRANCHE ?? SIZE;
const SUPPLIER = 'DEMO_ENERGY';
const ROOT = path.join(__dirname, '..');

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const external = (n: number) => `BULK-${String(n).padStart(6, '0')}`;

/** Copy c of a seed account as bench/scale.ts copyAccounts stores it (c = 0: the seed itself). */
function copyOf(seed: Json, c: number, n: number): Json {
  if (c === 0) return seed;
  const a = structuredClone(seed);
  const suffix = String(c).padStart(4, '0');
  a.external_account_number = external(n);
  for (const cu of a.customers ?? []) if (typeof cu.email === 'string') cu.email += suffix;
  for (const sa of a.supply_addresses ?? []) {
    for (const pa of sa.property_administrators ?? []) if (typeof pa.email === 'string') pa.email += suffix;
    for (const mp of sa.meter_points ?? []) {
      mp.identifier += suffix;
      for (const m of mp.meters ?? []) m.meter_serial_number += suffix;
    }
  }
  for (const r of a.references ?? []) r.value += suffix;
  return a;
}

async function writeBook(db: ReturnType<typeof createDb>, file: string): Promise<number> {
  const seeds: Json[] = [];
  const seedCount = Math.min(SEED_COUNT, SIZE);
  for (let from = 1; from <= seedCount; from += 500) {
    const numbers = Array.from({ length: Math.min(500, seedCount - from + 1) }, (_, i) => external(from + i));
    const loaded = await loadAccountsByExternal(db, SUPPLIER, numbers);
    for (const n of numbers) seeds.push(loaded.get(n) as Json);
  }
  const out = fs.createWriteStream(file);
  for (let n = 1; n <= BOOK; n++) {
    const c = Math.floor((n - 1) / SEED_COUNT);
    const i = (n - 1) % SEED_COUNT;
    if (!out.write(`${JSON.stringify(copyOf(seeds[i]!, c, n))}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return fs.statSync(file).size;
}

function vm(pid: number, key: 'VmHWM' | 'VmRSS'): number {
  try {
    const m = new RegExp(`${key}:\\s+(\\d+) kB`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : 0;
  } catch {
    return 0;
  }
}

async function main() {
  const stack = await startBenchStack({ env: { MAINTENANCE_INTERVAL_MINUTES: '0' } });
  const db = createDb(stack.databaseUrl, 3);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'di-reconcile-'));
  try {
    process.stderr.write(`bulk-loading ${SIZE} accounts\n`);
    const loadSeconds = await bulkLoad(db, `bench${process.pid}`, 0, SIZE);
    await db.raw('ANALYZE');
    let fillSeconds: number | null = null;
    if (DIGESTS === 'stored') {
      const t = performance.now();
      // A tranche needs the digests of its own accounts only: the others are counted, not hashed.
      for (let from = 1; from <= BOOK; from += 500) {
        const numbers = Array.from({ length: Math.min(500, BOOK - from + 1) }, (_, i) => external(from + i));
        await db.transaction((trx) => accountDigests(trx, SUPPLIER, numbers));
      }
      fillSeconds = (performance.now() - t) / 1000;
      process.stderr.write(`digests stored: ${BOOK} in ${fillSeconds.toFixed(0)} s\n`);
    }
    const book = path.join(tmp, 'book.ndjson');
    const t0 = performance.now();
    const bookBytes = await writeBook(db, book);
    process.stderr.write(`book written: ${(bookBytes / 1024 ** 2).toFixed(0)} MiB in ${((performance.now() - t0) / 1000).toFixed(0)} s\n`);
    if (TRANCHE !== null) return await tranche(stack, book, loadSeconds);

    const cpu0 = stack.cpu();
    const started = performance.now();
    const child = spawn(path.join(ROOT, 'bin', 'data-import'), ['reconcile', '--input', book, '--api-url', stack.apiUrl, '--api-key', stack.apiKey, '--concurrency', String(CONCURRENCY), '--progress', 'plain', '--extras', 'list'], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: CLIENT_NODE_OPTIONS ? { ...process.env, NODE_OPTIONS: CLIENT_NODE_OPTIONS } : process.env,
    });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    // bin/data-import may exec node; the deepest descendant is the CLI itself: sample the whole tree.
    let peak = 0;
    const sample = setInterval(() => {
      for (const pid of descendants(child.pid!)) peak = Math.max(peak, vm(pid, 'VmHWM'));
    }, 250);
    const [code] = (await once(child, 'exit')) as [number | null];
    clearInterval(sample);
    const seconds = (performance.now() - started) / 1000;
    const cpu1 = stack.cpu();
    process.stdout.write(stdout);
    const report = JSON.parse(fs.readFileSync(`${book}.reconcile.json`, 'utf8')) as { summary: { classes: Record<string, number>; accountsPerSecond: number; durationMs: number } };
    const { classes } = report.summary;
    const row = {
      // RECONCILE_VARIANT: what the code measured is, for the table (default: this commit).
      variant: process.env.RECONCILE_VARIANT ?? null,
      accounts: SIZE,
      bulkLoadSeconds: Math.round(loadSeconds),
      digests: DIGESTS,
      digestFillSeconds: fillSeconds === null ? null : Math.round(fillSeconds),
      bookMiB: Math.round(bookBytes / 1024 ** 2),
      concurrency: CONCURRENCY,
      exitCode: code,
      classes,
      seconds: Number(seconds.toFixed(1)),
      accountsPerSecond: Math.round(SIZE / seconds),
      clientPeakRssMiB: peak,
      clientNodeOptions: CLIENT_NODE_OPTIONS || null,
      apiCpuMsPerAccount: Number((((cpu1.api! - cpu0.api!) * 1000) / SIZE).toFixed(2)),
      target: { accountsPerSecond: 1000, clientPeakRssMiB: 300 },
    };
    console.log(JSON.stringify(row));
    if (code !== 0 || classes.matched !== SIZE) throw new Error(`not every account matched (exit ${code}): ${JSON.stringify(classes)}`);
    // One run per size: a run replaces the earlier one of its size.
    const file = path.join(ROOT, 'bench', 'results', 'reconcile.json');
    const earlier = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as { runs?: Json[]; accounts?: number; notes?: string[]; tranches?: Json[]; trancheNotes?: string[] }) : null;
    const runs = (earlier?.runs ?? (earlier?.accounts ? [earlier as Json] : [])).filter((r) => r.accounts !== SIZE || (r.clientNodeOptions ?? null) !== row.clientNodeOptions || (r.digests ?? 'missing') !== DIGESTS || (r.variant ?? null) !== row.variant);
    writeResult('reconcile', {
      runs: [...runs, row].sort((a, b) => a.accounts - b.accounts),
      // What the figures say (bench/RESULTS.md prints them under the table), written by hand.
      notes: earlier?.notes,
      note: 'measured on a shared 2-core machine with other work running (PostgreSQL, the API and the client on the same 2 cores)',
      // The tranche runs (RECONCILE_TRANCHE) are kept as they are: a whole-book run does not replace them.
      tranches: earlier?.tranches,
      trancheNotes: earlier?.trancheNotes,
    });
    console.log(`written ${path.join('bench', 'results', 'reconcile.json')}`);
  } finally {
    await db.destroy();
    await stack.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** One run of the client on the book; its exit code, seconds and report summary. */
async function reconcileOnce(stack: { apiUrl: string; apiKey: string }, book: string, extras: string): Promise<{ code: number | null; seconds: number; summary: Json }> {
  const started = performance.now();
  const child = spawn(path.join(ROOT, 'bin', 'data-import'), ['reconcile', '--input', book, '--api-url', stack.apiUrl, '--api-key', stack.apiKey, '--progress', 'plain', '--extras', extras], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: CLIENT_NODE_OPTIONS ? { ...process.env, NODE_OPTIONS: CLIENT_NODE_OPTIONS } : process.env,
  });
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  const seconds = (performance.now() - started) / 1000;
  process.stdout.write(stdout);
  const summary = (JSON.parse(fs.readFileSync(`${book}.reconcile.json`, 'utf8')) as { summary: Json }).summary;
  return { code, seconds, summary };
}

/** RECONCILE_TRANCHE: the tranche's book against the supplier holding SIZE accounts, counted then listed. */
async function tranche(stack: { apiUrl: string; apiKey: string }, book: string, loadSeconds: number): Promise<void> {
  const counted = await reconcileOnce(stack, book, 'count');
  const listed = await reconcileOnce(stack, book, 'list');
  const row = {
    date: new Date().toISOString(),
    variant: process.env.RECONCILE_VARIANT ?? null,
    tranche: BOOK,
    supplierAccounts: SIZE,
    bulkLoadSeconds: Math.round(loadSeconds),
    count: { exitCode: counted.code, seconds: Number(counted.seconds.toFixed(1)), outside: counted.summary.outside, classes: counted.summary.classes, requests: counted.summary.requests, phases: counted.summary.phases },
    list: { exitCode: listed.code, seconds: Number(listed.seconds.toFixed(1)), outside: listed.summary.outside, requests: listed.summary.requests, phases: listed.summary.phases },
    target: { countSeconds: 5 },
  };
  console.log(JSON.stringify(row));
  if (counted.code !== 0 || counted.summary.classes.matched !== BOOK || counted.summary.outside !== SIZE - BOOK) throw new Error(`the tranche did not sign off (exit ${counted.code}): ${JSON.stringify(counted.summary.classes)}`);
  if (listed.code !== 3 || listed.summary.outside !== SIZE - BOOK) throw new Error(`--extras list did not find the ${SIZE - BOOK} others (exit ${listed.code})`);
  const file = path.join(ROOT, 'bench', 'results', 'reconcile.json');
  const earlier = JSON.parse(fs.readFileSync(file, 'utf8')) as Json;
  const tranches = ((earlier.tranches ?? []) as Json[]).filter((r) => r.tranche !== BOOK || r.supplierAccounts !== SIZE || (r.variant ?? null) !== row.variant);
  // The file's date and machine stay those of the whole-book runs; a tranche row has its own date.
  writeResult('reconcile', { ...earlier, tranches: [...tranches, row] });
  console.log(`written ${path.join('bench', 'results', 'reconcile.json')}`);
}

/** pid and every descendant of it (from /proc). */
function descendants(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    try {
      const children = fs.readFileSync(`/proc/${out[i]}/task/${out[i]}/children`, 'utf8').trim();
      if (children) out.push(...children.split(/\s+/).map(Number));
    } catch {
      /* gone */
    }
  }
  return out;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
