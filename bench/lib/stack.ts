/**
 * The service as separate processes for the benchmarks: a Temporal dev server of its own (in
 * memory, Prometheus metrics on a free port), a fresh database, a unique stream, then
 * `dist/worker/main.js` and `dist/api/main.js` exactly as production runs them. Requires
 * `npm run build` (the bench npm scripts run it).
 *
 * `root` runs another checkout's build instead of this tree's (bench/compare.ts: the commit before
 * and the commit after): its migrations, its seedDemo, its worker and API, all from `<root>/dist`.
 */
import crypto from 'node:crypto';
import { spawn, ChildProcess, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { createDb, ensureDatabase } from '../../db/knex';
import { connectNats } from '../../events/nats';
import { seedDemo } from '../../scripts/seedDemo';

const ROOT = path.join(__dirname, '..', '..');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

function binary(name: string): string {
  const venv = path.join(ROOT, '.venv', 'bin', name);
  if (fs.existsSync(venv)) return venv;
  try {
    return execFileSync('sh', ['-c', `command -v ${name}`]).toString().trim();
  } catch {
    throw new Error(`${name} not found: run npm test or npm run up once to install it into .venv`);
  }
}

/** BENCH_READY_TIMEOUT_MS: longer on a loaded machine (default 60 s). */
async function waitFor(check: () => Promise<boolean>, what: string, ms = Number(process.env.BENCH_READY_TIMEOUT_MS ?? 60_000)): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} not ready within ${ms} ms`);
}

const portOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => {
      s.end();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });

/** CPU seconds (user + system) a process has used so far. */
export function cpuSeconds(pid: number): number {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return 0;
  }
}

/** CPU seconds (user + system) this process has used so far, all its threads. */
export function ownCpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

/** CPU seconds of every PostgreSQL server process on this machine. */
export function postgresCpuSeconds(): number {
  let total = 0;
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') total += cpuSeconds(Number(pid));
    } catch {
      /* gone */
    }
  }
  return total;
}

/** The default of TEMPORAL_SQLITE_PRAGMAS, as scripts/lib/common.sh has it (docs/configuration.md). */
export const TEMPORAL_SQLITE_PRAGMAS_DEFAULT = 'journal_mode=WAL,synchronous=NORMAL';

/** The `PRAGMA=VALUE` pairs of TEMPORAL_SQLITE_PRAGMAS (unset: the default; `none`: SQLite's own). */
export function temporalSqlitePragmas(env: NodeJS.ProcessEnv = process.env): string[] {
  const v = env.TEMPORAL_SQLITE_PRAGMAS ?? TEMPORAL_SQLITE_PRAGMAS_DEFAULT;
  if (v.trim() === 'none') return [];
  const pairs = v.split(/[,\s]+/).filter(Boolean);
  for (const p of pairs) if (!p.includes('=')) throw new Error(`TEMPORAL_SQLITE_PRAGMAS: expected PRAGMA=VALUE pairs separated by commas, got '${p}'`);
  return pairs;
}

/** Where a benchmark's dev server writes its errors (a crash's last words): data/bench/temporal-<port>.log. */
export function temporalLog(port: number): string {
  const dir = path.join(ROOT, 'data', 'bench');
  fs.mkdirSync(dir, { recursive: true });
  return path.join(dir, `temporal-${port}.log`);
}

/**
 * A Temporal dev server of the benchmarks' own: in memory (or on a fresh SQLite file `dbFile`
 * with `pragmas`, as `npm run up` runs it), headless, the service's search attributes registered,
 * Prometheus metrics on a free port. Resolves once its port answers.
 */
export async function startTemporalDevServer(opts: { dbFile?: string; pragmas?: string[] } = {}): Promise<{ temporal: ChildProcess; temporalPort: number; temporalMetricsPort: number }> {
  const temporalPort = await freePort();
  const temporalMetricsPort = await freePort();
  const store: string[] = [];
  if (opts.dbFile) {
    for (const suffix of ['', '-wal', '-shm', '-journal']) fs.rmSync(`${opts.dbFile}${suffix}`, { force: true });
    store.push('--db-filename', opts.dbFile, ...(opts.pragmas ?? []).flatMap((p) => ['--sqlite-pragma', p]));
  }
  const temporal = spawn(binary('temporal'), [
    'server', 'start-dev', '--headless', '--ip', '127.0.0.1', '--port', String(temporalPort), '--log-level', 'error', '--metrics-port', String(temporalMetricsPort),
    '--search-attribute', 'ImportSupplier=Keyword', '--search-attribute', 'ExternalAccountNumber=Keyword', '--search-attribute', 'ImportStatus=Keyword',
    ...store,
  ], { stdio: ['ignore', 'ignore', fs.openSync(temporalLog(temporalPort), 'w')] });
  try {
    await waitFor(() => portOpen(temporalPort), 'temporal');
  } catch (err) {
    temporal.kill('SIGKILL');
    throw err;
  }
  return { temporal, temporalPort, temporalMetricsPort };
}

/** Temporal server requests so far: `<service>.<operation>` → count, and the persistence requests. */
export async function temporalRequests(metricsUrl: string): Promise<{ byOperation: Record<string, number>; persistence: number }> {
  const text = await (await fetch(metricsUrl)).text();
  const byOperation: Record<string, number> = {};
  let persistence = 0;
  for (const line of text.split('\n')) {
    const m = /^(service_requests|persistence_requests)\{([^}]*)\} ([0-9.e+]+)$/.exec(line);
    if (!m) continue;
    if (m[1] === 'persistence_requests') {
      persistence += Number(m[3]);
      continue;
    }
    const op = /operation="([^"]*)"/.exec(m[2]!)?.[1] ?? '?';
    const service = /service_name="([^"]*)"/.exec(m[2]!)?.[1] ?? '?';
    const key = `${service}.${op}`;
    byOperation[key] = (byOperation[key] ?? 0) + Number(m[3]);
  }
  return { byOperation, persistence };
}

export interface BenchStack {
  /** The checkout whose `dist/` runs. */
  root: string;
  temporal: ChildProcess;
  /** The Temporal dev server's Prometheus endpoint. */
  temporalMetricsUrl: string;
  /** CPU seconds used so far by each part of the stack (and by this benchmark process). */
  cpu(): Record<string, number>;
  apiUrl: string;
  apiKey: string;
  databaseUrl: string;
  api: ChildProcess;
  worker: ChildProcess;
  /** Peak resident set size (VmHWM) of a process, in MiB. */
  peakRssMiB(p: ChildProcess): number;
  stop(): Promise<void>;
}

export function peakRssMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /VmHWM:\s+(\d+) kB/.exec(status);
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
}

let stacks = 0;

type LaunchDefaults = Pick<typeof import('../../lib/nodeOptions'), 'workerNodeOptions' | 'apiNodeOptions' | 'serviceProcessEnv'>;

/** lib/nodeOptions.js of a checkout's build (worker/nodeOptions.js before it served the API too), or no flags and the environment unchanged. */
function rootLaunchDefaults(root: string): LaunchDefaults {
  const none = { workerNodeOptions: () => [], apiNodeOptions: () => [], serviceProcessEnv: (env: NodeJS.ProcessEnv) => env };
  for (const file of [path.join(root, 'dist', 'lib', 'nodeOptions.js'), path.join(root, 'dist', 'worker', 'nodeOptions.js')]) {
    if (fs.existsSync(file)) return { ...none, ...(require(file) as Partial<LaunchDefaults>) };
  }
  return none;
}

/**
 * Migrations and the demo supplier, organisation and API key with the code of another checkout
 * (its `dist/db/knex.js` and `dist/scripts/seedDemo.js`), in a process of its own.
 */
function migrateAndSeedIn(root: string, databaseUrl: string, keyFile: string): string {
  const script = `
    const { createDb } = require(${JSON.stringify(path.join(root, 'dist/db/knex.js'))});
    const { seedDemo } = require(${JSON.stringify(path.join(root, 'dist/scripts/seedDemo.js'))});
    (async () => {
      const db = createDb(process.argv[1], 2);
      await db.migrate.latest();
      const { API_KEY } = await seedDemo(db, { keyFile: process.argv[2] });
      await db.destroy();
      process.stdout.write(JSON.stringify({ API_KEY }));
    })().catch((err) => { console.error(err); process.exit(1); });`;
  const out = execFileSync(process.execPath, ['-e', script, databaseUrl, keyFile], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] }).toString();
  return (JSON.parse(out) as { API_KEY: string }).API_KEY;
}

/**
 * `temporal: 'as-run'`: the Temporal dev server on a SQLite file with the pragmas `npm run up` gives
 * it (TEMPORAL_SQLITE_PRAGMAS, default journal_mode=WAL, synchronous=NORMAL), as a user of the
 * README's first command runs it; default `memory`: in memory.
 */
export async function startBenchStack(opts: { root?: string; env?: Record<string, string>; workerNodeArgs?: string[]; apiNodeArgs?: string[]; temporal?: 'memory' | 'as-run' } = {}): Promise<BenchStack> {
  const root = path.resolve(opts.root ?? ROOT);
  if (!fs.existsSync(path.join(root, 'dist', 'api', 'main.js'))) throw new Error(`run \`npm run build\` first (in ${root})`);
  const id = `${process.pid}${stacks++ ? `_${stacks}` : ''}`;
  const baseDb = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432';
  const databaseUrl = `${baseDb}/di_bench_${id}`;
  const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
  const children: ChildProcess[] = [];
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'di-bench-'));
  // Stops every process started here, deletes the stream, drops the database (also when the start fails).
  const stop = async () => {
    for (const c of [...children].reverse()) c.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 1500));
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    const nc = await connectNats(natsUrl, 'bench-cleanup');
    const jsm = await jetstreamManager(nc);
    await jsm.streams.delete(`BENCH_${id}`).catch(() => undefined);
    await nc.close();
    const admin = createDb(`${baseDb}/postgres`, 1);
    await admin.raw(`DROP DATABASE IF EXISTS "di_bench_${id}" WITH (FORCE)`);
    await admin.destroy();
    fs.rmSync(tmp, { recursive: true, force: true });
  };
  try {

    const { temporal, temporalPort, temporalMetricsPort } = await startTemporalDevServer(opts.temporal === 'as-run' ? { dbFile: path.join(tmp, 'temporal.db'), pragmas: temporalSqlitePragmas() } : {});
    children.push(temporal);

    await ensureDatabase(databaseUrl);
    let API_KEY: string | undefined;
    if (root === path.resolve(ROOT)) {
      const db = createDb(databaseUrl, 2);
      await db.migrate.latest();
      API_KEY = (await seedDemo(db, { keyFile: path.join(tmp, 'key') })).API_KEY;
      await db.destroy();
    } else {
      API_KEY = migrateAndSeedIn(root, databaseUrl, path.join(tmp, 'key'));
    }

    const port = await freePort();
    const metricsPort = await freePort();
    const env = {
      ...process.env,
      APP_ENV: 'development',
      // The run's own key: there is no built-in key (lib/config.ts requireApiSettings).
      AUTH_SIGNING_KEY: crypto.randomBytes(32).toString('base64url'),
      LOG_LEVEL: 'warn',
      DATABASE_URL: databaseUrl,
      NATS_URL: natsUrl,
      TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}`,
      EVENTS_STREAM: `BENCH_${id}`,
      EVENTS_SUBJECT_PREFIX: `bench${id}`,
      PORT: String(port),
      WORKER_METRICS_PORT: '0',
      RATE_LIMIT_PER_MINUTE: '1000000',
      AUTH_TOKEN_RATE_LIMIT_PER_MINUTE: '1000000',
      AUTH_TOKEN_RATE_LIMIT_BURST: '100000',
      ...opts.env,
    };
    void metricsPort;
    // The processes start as that checkout's run command starts them (its lib/nodeOptions.ts:
    // node flags and environment); a checkout from before that file ran them with none.
    const launch = rootLaunchDefaults(root);
    const serviceEnv = launch.serviceProcessEnv(env);
    const workerArgs = [...launch.workerNodeOptions(env), ...(opts.workerNodeArgs ?? [])];
    const worker = spawn(process.execPath, [...workerArgs, path.join(root, 'dist/worker/main.js')], { cwd: root, env: serviceEnv, stdio: ['ignore', 'ignore', 'inherit'] });
    children.push(worker);
    const apiArgs = [...launch.apiNodeOptions(env), ...(opts.apiNodeArgs ?? [])];
    const api = spawn(process.execPath, [...apiArgs, path.join(root, 'dist/api/main.js')], { cwd: root, env: serviceEnv, stdio: ['ignore', 'ignore', 'inherit'] });
    children.push(api);
    const apiUrl = `http://127.0.0.1:${port}`;
    await waitFor(async () => (await fetch(`${apiUrl}/readyz`)).ok, 'api');

    return {
      root,
      temporal,
      temporalMetricsUrl: `http://127.0.0.1:${temporalMetricsPort}/metrics`,
      cpu: () => ({
        temporal: cpuSeconds(temporal.pid!),
        api: cpuSeconds(api.pid!),
        worker: cpuSeconds(worker.pid!),
        postgres: postgresCpuSeconds(),
        client: ownCpuSeconds(),
      }),
      apiUrl,
      apiKey: API_KEY!,
      databaseUrl,
      api,
      worker,
      peakRssMiB: (p) => peakRssMiB(p.pid!),
      stop,
    };
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }
}

/** Exchanges the API key for a token through the GraphQL mutation. */
export async function obtainToken(apiUrl: string, apiKey: string): Promise<string> {
  const r = await fetch(`${apiUrl}/v1/graphql/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: 'mutation($k:String!){obtainKrakenToken(input:{APIKey:$k}){token}}', variables: { k: apiKey } }),
  });
  const body = (await r.json()) as { data?: { obtainKrakenToken?: { token: string } } };
  const token = body.data?.obtainKrakenToken?.token;
  if (!token) throw new Error(`no token: ${JSON.stringify(body)}`);
  return token;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export function machine(): Record<string, string> {
  return {
    cpu: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown'}`,
    memory: `${Math.round(os.totalmem() / 1024 ** 3)} GiB`,
    node: process.version,
    os: `${os.type()} ${os.release()}`,
  };
}

export function writeResult(name: string, data: unknown): string {
  const dir = path.join(ROOT, 'bench', 'results');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.json`);
  fs.writeFileSync(file, JSON.stringify({ date: new Date().toISOString(), machine: machine(), ...((data as object) ?? {}) }, null, 2));
  return file;
}
