/**
 * The fault suite (docs/fault-suite.md): migrates generated books through the real stack — the
 * API and worker processes under the run command's supervisor, a PostgreSQL cluster, a NATS
 * server and a Temporal dev server of its own — while it injects faults at random moments:
 *   worker   SIGKILL of worker processes
 *   api      SIGKILL of the API process
 *   nats     the NATS server killed and kept down for a while
 *   postgres an immediate (crash) restart of PostgreSQL
 * After each scenario it checks the invariants of test/faults/invariants.ts and prints the figures.
 * Started by scripts/faults.sh, which brings up the servers and passes them in the environment.
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { Connection, Client } from '@temporalio/client';
import { createDb } from '../../db/knex';
import { connectNats } from '../../events/nats';
import { Supervisor } from '../../scripts/supervisor';
import { serviceChildren } from '../../scripts/supervise';
import { freePort, startNatsServer, NatsServer } from '../support/natsServer';
import { checkBook, waitForClosed, waitForQuiet } from './invariants';

type Scenario = 'worker' | 'api' | 'nats' | 'postgres';
const SCENARIOS: Scenario[] = ['worker', 'api', 'nats', 'postgres'];

interface Options {
  accounts: number;
  workers: number;
  scenarios: Scenario[];
  workerKills: number;
  apiKills: number;
  natsOutage: number;
  pgRestarts: number;
  seed: string;
  timeout: number;
}

interface Fault {
  scenario: Scenario;
  what: string;
  /** ms after the migration started */
  at: number;
  /** ms until the service answered / progressed again */
  recoveredMs: number | null;
}

interface ScenarioResult {
  scenario: Scenario;
  accounts: number;
  faults: Fault[];
  /** faults asked for; fewer are injected when the book finishes first */
  planned: number;
  migrateSeconds: number;
  quietSeconds: number;
  problems: string[];
}

const ROOT = path.join(__dirname, '..', '..');
const DIST = path.join(ROOT, 'dist');
const SUPPLIER = 'DEMO_ENERGY';

function int(min: number, max: number) {
  return (v: string) => {
    const n = Number(v);
    if (!/^\d+$/.test(v) || n < min || n > max) throw new InvalidArgumentError(`expected an integer from ${min} to ${max}.`);
    return n;
  };
}

function need(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run the fault suite with scripts/faults.sh`);
  return v;
}

/** A seeded generator (mulberry32) so a run can be repeated with --seed. */
function rng(seed: string): () => number {
  let a = crypto.createHash('sha256').update(seed).digest().readUInt32LE(0);
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const say = (line: string) => process.stderr.write(`[faults] ${line}\n`);

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv, logFile?: string): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', logFile ? fs.openSync(logFile, 'a') : 'inherit'] });
    let stdout = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout }));
  });
}

async function untilOk(url: string, timeoutMs: number): Promise<number> {
  const t0 = Date.now();
  for (;;) {
    try {
      const r = await fetch(url, { signal: AbortSignal.timeout(1000) });
      if (r.ok) return Date.now() - t0;
    } catch {
      /* not yet */
    }
    if (Date.now() - t0 > timeoutMs) throw new Error(`${url} did not answer within ${timeoutMs} ms`);
    await sleep(100);
  }
}

async function main(): Promise<number> {
  const program = new Command('faults')
    .description('Migrate generated books through the real stack while killing its processes at random moments; check that nothing is lost, stuck or published twice.')
    .option('--accounts <n>', 'accounts in each scenario\'s book', int(1, 100_000), 300)
    .option('--workers <n>', 'worker processes under the supervisor', int(1, 16), 2)
    .option('--scenarios <list>', `comma-separated, from ${SCENARIOS.join(',')}`, (v) => v.split(',').map((s) => {
      if (!SCENARIOS.includes(s as Scenario)) throw new InvalidArgumentError(`unknown scenario ${s}`);
      return s as Scenario;
    }), SCENARIOS)
    .option('--worker-kills <n>', 'SIGKILLs of worker processes in the worker scenario', int(0, 1000), 4)
    .option('--api-kills <n>', 'SIGKILLs of the API in the api scenario', int(0, 1000), 1)
    .option('--nats-outage <seconds>', 'how long NATS stays down in the nats scenario', int(1, 3600), 30)
    .option('--pg-restarts <n>', 'crash restarts of PostgreSQL in the postgres scenario', int(0, 1000), 1)
    .option('--seed <seed>', 'seed of the books and of the fault moments (default: random, printed)')
    .option('--timeout <minutes>', 'the migrate client\'s --timeout of each scenario', int(1, 600), 20)
    .addHelpText('after', '\nRun it through scripts/faults.sh (npm run test:faults), which starts PostgreSQL, NATS and Temporal for it.\n');
  program.parse();
  const raw = program.opts<Omit<Options, 'seed'> & { seed?: string }>();
  const o: Options = { ...raw, seed: raw.seed ?? crypto.randomBytes(4).toString('hex') };
  const random = rng(o.seed);
  say(`seed ${o.seed} (repeat with --seed ${o.seed})`);

  const id = crypto.randomBytes(3).toString('hex');
  const work = path.join(ROOT, 'data', 'faults', `run-${id}`);
  fs.mkdirSync(work, { recursive: true });
  const pgBase = need('FAULTS_DATABASE_BASE_URL');
  const pgCtl = need('FAULTS_PG_CTL').split(' ');
  const databaseUrl = `${pgBase}/data_import_faults_${id}`;

  const nats: NatsServer = await startNatsServer({ syncAlways: true, bin: process.env.NATS_SERVER_BIN });
  const apiPort = await freePort();
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    APP_ENV: 'development',
    LOG_LEVEL: 'info',
    HOST: '127.0.0.1',
    PORT: String(apiPort),
    DATABASE_URL: databaseUrl,
    NATS_URL: nats.url,
    TEMPORAL_ADDRESS: need('TEMPORAL_ADDRESS'),
    TEMPORAL_TASK_QUEUE: `faults-${id}`,
    EVENTS_STREAM: `FAULTS_${id}`,
    EVENTS_SUBJECT_PREFIX: `faults${id}`,
    WORKER_METRICS_PORT: '0',
    DEMO_API_KEY_FILE: path.join(work, 'demo-api-key'),
  };

  const setup = await run(process.execPath, [path.join(DIST, 'scripts', 'setup.js'), '--demo'], env);
  if (setup.code !== 0) throw new Error('setup (migrations, demo seed) failed');
  const apiKey = /^API_KEY=(.*)$/m.exec(setup.stdout)?.[1];
  if (!apiKey) throw new Error('setup printed no API key');

  const supervisor = new Supervisor({
    children: serviceChildren({ workers: o.workers, apiReplicas: 1, env, logDir: work, root: DIST }),
    runDir: work,
    // Restarts at the run command's pace, a little quicker so a short run sees several faults.
    backoff: { initialMs: 500, maxMs: 5000, resetAfterMs: 10_000 },
    stopGraceMs: 15_000,
    log: (line) => fs.appendFileSync(path.join(work, 'supervisor.log'), `${line}\n`),
  });
  supervisor.start();
  await untilOk(`${apiUrl}/readyz`, 120_000);
  say(`stack up: API ${apiUrl}, ${o.workers} worker(s), NATS ${nats.url}, Temporal ${env.TEMPORAL_ADDRESS}; logs in ${path.relative(ROOT, work)}`);

  const db = createDb(databaseUrl, 4);
  const nc = await connectNats(nats.url, 'faults-checker');
  const connection = await Connection.connect({ address: env.TEMPORAL_ADDRESS! });
  const temporal = new Client({ connection });
  const processed = async (prefix: string) =>
    Number((await db('import_processes').where({ status: 'PROCESSED' }).where('external_account_number', 'like', `${prefix}%`).count<{ n: string }[]>('* as n'))[0]!.n);

  /** ms from `since` until the book has more PROCESSED accounts than it had at `since`. */
  async function progressAfter(prefix: string, since: number, before: number, done: () => boolean): Promise<number | null> {
    for (;;) {
      try {
        if ((await processed(prefix)) > before) return Date.now() - since;
      } catch {
        /* the database may be restarting */
      }
      if (done()) return null;
      await sleep(100);
    }
  }

  const results: ScenarioResult[] = [];
  try {
    for (const scenario of o.scenarios) {
      const prefix = `F${scenario.slice(0, 2).toUpperCase()}${id}-`;
      const book = path.join(work, `${scenario}.ndjson`);
      const gen = await run(process.execPath, [path.join(DIST, 'cli', 'main.js'), 'generate', '--count', String(o.accounts), '--seed', `${o.seed}-${scenario}`, '--prefix', prefix, '--out', book], env, path.join(work, 'cli.log'));
      if (gen.code !== 0) throw new Error('generate failed');
      const exts = fs.readFileSync(book, 'utf8').split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { external_account_number: string }).external_account_number);

      say(`${scenario}: migrating ${exts.length} accounts`);
      const t0 = Date.now();
      let migrating = true;
      const migrate = run(
        process.execPath,
        [path.join(DIST, 'cli', 'main.js'), 'migrate', '--input', book, '--api-url', apiUrl, '--api-key', apiKey, '--concurrency', '8', '--poll-interval', '250', '--timeout', String(o.timeout), '--progress', 'plain', '--report', path.join(work, `${scenario}.report`)],
        env,
        path.join(work, `${scenario}.migrate.log`),
      ).finally(() => (migrating = false));

      const faults: Fault[] = [];
      const planned = { worker: o.workerKills, api: o.apiKills, nats: 1, postgres: o.pgRestarts }[scenario];
      const inject = async (what: string, act: () => Promise<number | null>) => {
        const at = Date.now() - t0;
        const recoveredMs = await act();
        faults.push({ scenario, what, at, recoveredMs });
        say(`${scenario}: ${what} at ${(at / 1000).toFixed(1)} s; recovered in ${recoveredMs === null ? '—' : `${(recoveredMs / 1000).toFixed(1)} s`}`);
      };
      // Faults land at random moments while the book is under way: first after some accounts are in.
      const injector = (async () => {
        while (migrating && (await processed(prefix).catch(() => 0)) < Math.min(3, exts.length)) await sleep(100);
        const count = planned;
        for (let i = 0; i < count && migrating; i++) {
          await sleep(100 + random() * 1200);
          if (!migrating) break;
          if (scenario === 'worker' || scenario === 'api') {
            const name = scenario === 'api' ? 'api-1' : `worker-${1 + Math.floor(random() * o.workers)}`;
            const pid = supervisor.pid(name) ?? (await supervisor.waitForStart(name, { timeoutMs: 60_000 }));
            await inject(`SIGKILL ${name}`, async () => {
              const since = Date.now();
              const before = await processed(prefix).catch(() => 0);
              process.kill(pid, 'SIGKILL');
              await supervisor.waitForStart(name, { notPid: pid, timeoutMs: 120_000 });
              if (scenario === 'api') return untilOk(`${apiUrl}/readyz`, 120_000).then(() => Date.now() - since);
              return progressAfter(prefix, since, before, () => !migrating);
            });
          } else if (scenario === 'nats') {
            await inject(`NATS killed, down ${o.natsOutage} s`, async () => {
              await nats.stop('SIGKILL');
              await sleep(o.natsOutage * 1000);
              const back = Date.now();
              await nats.start();
              // Recovered when the relay publishes again: the oldest unpublished event is gone.
              const oldest = async () => (await db('outbox_pending').min<{ seq: string | null }[]>('seq as seq'))[0]!.seq;
              const waiting = await oldest();
              for (;;) {
                const now = await oldest();
                if (now === null || now !== waiting) return Date.now() - back;
                await sleep(100);
              }
            });
          } else {
            await inject('PostgreSQL crash restart', async () => {
              const since = Date.now();
              const before = await processed(prefix);
              const r = await run(pgCtl[0]!, [...pgCtl.slice(1), 'restart', '-m', 'immediate', '-w', '-t', '60'], process.env, path.join(work, 'pg_ctl.log'));
              if (r.code !== 0) throw new Error('pg_ctl restart failed (see pg_ctl.log)');
              return progressAfter(prefix, since, before, () => !migrating);
            });
          }
        }
      })();

      const m = await migrate;
      await injector;
      const migrateSeconds = (Date.now() - t0) / 1000;
      const report = JSON.parse(fs.readFileSync(path.join(work, `${scenario}.report.json`), 'utf8')) as { accounts: { external_account_number: string; final_status: string }[] };
      const clientStatus = new Map(report.accounts.map((a) => [a.external_account_number, a.final_status]));
      const q0 = Date.now();
      await waitForQuiet(db, SUPPLIER, exts, 300_000).catch((err) => say(String(err)));
      await waitForClosed(db, temporal, SUPPLIER, exts, 120_000).catch((err) => say(String(err)));
      const quietSeconds = (Date.now() - q0) / 1000;
      const check = await checkBook({ db, temporal, nc, stream: env.EVENTS_STREAM!, subjectPrefix: env.EVENTS_SUBJECT_PREFIX!, supplier: SUPPLIER, exts, clientStatus });
      if (m.code !== 0) check.problems.unshift(`migrate exited with ${m.code}`);
      results.push({ scenario, accounts: exts.length, faults, planned, migrateSeconds, quietSeconds, problems: check.problems });
      say(`${scenario}: ${check.problems.length === 0 ? 'every invariant holds' : `${check.problems.length} problem(s)`}`);
      for (const p of check.problems.slice(0, 20)) say(`  ${p}`);
    }
  } finally {
    await nc.close().catch(() => undefined);
    await connection.close().catch(() => undefined);
    await db.destroy().catch(() => undefined);
    await supervisor.stop();
    await nats.dispose();
  }

  const restarts = supervisor.status().reduce((n, c) => n + c.restarts, 0);
  const lines = [
    '',
    '| scenario | accounts | faults injected | recovered in (s) | migrate (s) | settled after (s) | problems |',
    '| --- | ---: | ---: | --- | ---: | ---: | ---: |',
    ...results.map((r) => {
      const rec = r.faults.map((f) => (f.recoveredMs === null ? '—' : (f.recoveredMs / 1000).toFixed(1))).join(', ') || '—';
      return `| ${r.scenario} | ${r.accounts} | ${r.faults.length} of ${r.planned} | ${rec} | ${r.migrateSeconds.toFixed(1)} | ${r.quietSeconds.toFixed(1)} | ${r.problems.length} |`;
    }),
    '',
    `seed ${o.seed}; supervisor restarts ${restarts}`,
  ];
  const failed = results.filter((r) => r.problems.length > 0 || r.faults.length === 0);
  lines.push(`faults: ${results.length - failed.length} passed, ${failed.length} failed`);
  process.stdout.write(`${lines.join('\n')}\n`);
  for (const r of results.filter((x) => x.faults.length === 0)) say(`${r.scenario}: no fault was injected (the book finished first): use more --accounts`);
  // Logs are kept only when something failed.
  if (failed.length === 0) fs.rmSync(work, { recursive: true, force: true });
  return failed.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    say(`failed: ${err instanceof Error ? err.stack : String(err)}`);
    process.exit(2);
  },
);
