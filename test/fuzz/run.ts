/**
 * The bounded schemathesis run of the test command (`npm run test:fuzz`, called by
 * scripts/test.sh through scripts/fuzz.sh): the real API and worker as processes, on a free port,
 * against the test run's PostgreSQL, NATS and Temporal, with a migrated database of their own
 * seeded like the quick start (supplier DEMO_ENERGY, organisation DEMO, one API key). The token
 * comes from the GraphQL mutation, as an integrator gets it. Schemathesis reads `/openapi.json`
 * from the running API and fails on any 5xx or answer that does not match the document.
 *
 * Environment: TEST_DATABASE_URL, TEST_NATS_URL, TEST_TEMPORAL_ADDRESS (scripts/test.sh exports
 * them), SCHEMATHESIS (the CLI), FUZZ_MAX_EXAMPLES (default 100), FUZZ_SEED (default random,
 * printed: rerun with it to reproduce), FUZZ_SCHEMA / FUZZ_CONFIG / FUZZ_CHECKS (another document
 * to fuzz with, its schemathesis config, the checks; docs/platform-compatibility.md). Arguments
 * after `--` go to `schemathesis run`.
 * What the checks mean and which do not apply where: docs/api-fuzzing.md.
 */
import { spawn, ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import pg from 'pg';
import { createDb, ensureDatabase } from '../../db/knex';
import { connectNats } from '../../events/nats';
import { seedDemo } from '../../scripts/seedDemo';
import { databaseUrl, TEST_NATS_URL, TEST_PG_URL, TEST_TEMPORAL_ADDRESS } from '../support/env';
import { freePort } from '../support/natsServer';

const ROOT = path.resolve(__dirname, '..', '..');
const say = (msg: string) => process.stderr.write(`\x1b[1m[fuzz]\x1b[0m ${msg}\n`);

/** A service process (API or worker) from the TypeScript sources, its output in `log`. */
function startService(entry: string, env: NodeJS.ProcessEnv, log: string): ChildProcess {
  const out = fs.openSync(log, 'a');
  const child = spawn(process.execPath, ['--import', 'tsx', entry], { cwd: ROOT, env, stdio: ['ignore', out, out] });
  fs.closeSync(out);
  return child;
}

async function stopService(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

async function waitReady(base: string, children: ChildProcess[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const dead = children.find((c) => c.exitCode !== null || c.signalCode !== null);
    if (dead) throw new Error(`a service process exited (code ${dead.exitCode ?? dead.signalCode}) before the API was ready`);
    try {
      if ((await fetch(`${base}/readyz`)).status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`the API at ${base} was not ready within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** An access token from the token endpoint, as an integrator obtains it. */
async function obtainToken(base: string, apiKey: string): Promise<string> {
  const res = await fetch(`${base}/v1/graphql/`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ query: 'mutation($k: String!) { obtainKrakenToken(input: {APIKey: $k}) { token } }', variables: { k: apiKey } }),
  });
  const body = (await res.json()) as { data?: { obtainKrakenToken?: { token?: string } }; errors?: unknown };
  const token = body.data?.obtainKrakenToken?.token;
  if (!token) throw new Error(`no token from obtainKrakenToken: ${res.status} ${JSON.stringify(body.errors)}`);
  return token;
}

/**
 * Imports the quick start's example account through the API and waits until it is PROCESSED, so
 * the status and registration operations have a real account to find (schemathesis.toml names
 * it, next to generated ones).
 */
async function importExample(base: string, token: string, timeoutMs: number): Promise<string> {
  const account = JSON.parse(fs.readFileSync(path.join(ROOT, 'examples', 'account-dual-fuel.json'), 'utf8')) as { import_supplier: string; external_account_number: string };
  const headers = { Authorization: `Token ${token}`, 'Content-Type': 'application/json' };
  const created = await fetch(`${base}/v2/data-import/accounts/`, { method: 'POST', headers, body: JSON.stringify(account) });
  if (created.status !== 201) throw new Error(`importing the example account answered ${created.status}: ${await created.text()}`);
  const url = `${base}/v2/data-import/accounts/${account.import_supplier}/${account.external_account_number}/`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = ((await (await fetch(url, { headers })).json()) as { status?: string }).status;
    if (status === 'PROCESSED') return `${account.import_supplier}/${account.external_account_number}`;
    if (status !== 'PENDING' && status !== 'IN_PROGRESS') throw new Error(`the example account ended ${status}`);
    if (Date.now() > deadline) throw new Error(`the example account was not PROCESSED within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The staged account of the run (schemathesis.toml names it among the accounts): process finds data to start. */
const STAGED_ACCOUNT = 'LEGACY-200045';

/**
 * Stages a copy of the example account as STAGED_ACCOUNT through the platform's v1
 * create-or-update, so process and the transfer status reach a staged account too, not only an
 * imported one and unknown ones.
 */
async function stageExample(base: string, token: string): Promise<string> {
  const account = JSON.parse(fs.readFileSync(path.join(ROOT, 'examples', 'account-dual-fuel.json'), 'utf8')) as Record<string, unknown> & { import_supplier: string };
  const staged = { ...account, external_account_number: STAGED_ACCOUNT, references: [{ namespace: 'legacy-crm', value: `CRM-${STAGED_ACCOUNT}` }] };
  const headers = { Authorization: `Token ${token}`, 'Content-Type': 'application/json' };
  const res = await fetch(`${base}/v1/data-import/account-import-process/create-or-update/`, { method: 'POST', headers, body: JSON.stringify(staged) });
  if (res.status !== 201) throw new Error(`staging the example account answered ${res.status}: ${await res.text()}`);
  return `${account.import_supplier}/${STAGED_ACCOUNT}`;
}


/** What the API answered during the run, from its own request counter: `route method: status×count ...`. */
async function answersSeen(base: string): Promise<string[]> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const byOp = new Map<string, string[]>();
  for (const m of text.matchAll(/^data_import_http_requests_total\{route="([^"]*)",method="([^"]*)",status="(\d+)"[^}]*\} (\d+)/gm)) {
    const op = `${m[2]} ${m[1]}`;
    byOp.set(op, [...(byOp.get(op) ?? []), `${m[3]}×${m[4]}`]);
  }
  return [...byOp].sort(([a], [b]) => a.localeCompare(b)).map(([op, counts]) => `${op}: ${counts.join(' ')}`);
}

function runSchemathesis(bin: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { cwd, env, stdio: 'inherit' });
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

async function main(): Promise<number> {
  const st = process.env.SCHEMATHESIS;
  if (!st) throw new Error('SCHEMATHESIS is not set: run this through scripts/fuzz.sh (npm run test:fuzz)');
  const maxExamples = Number(process.env.FUZZ_MAX_EXAMPLES ?? 100);
  const seed = process.env.FUZZ_SEED ?? String(crypto.randomInt(1, 2 ** 31));
  const extra = process.argv.includes('--') ? process.argv.slice(process.argv.indexOf('--') + 1) : [];

  const id = crypto.randomBytes(4).toString('hex');
  const dir = path.join(ROOT, 'data', 'test', `fuzz-${id}`);
  fs.mkdirSync(dir, { recursive: true });
  const dbName = `di_fuzz_${id}`;
  const dbUrl = databaseUrl(dbName);
  const stream = `FUZZ_${id}`;
  const T0 = Date.now();
  let api: ChildProcess | undefined;
  let worker: ChildProcess | undefined;

  try {
    await ensureDatabase(dbUrl);
    const db = createDb(dbUrl, 2);
    let apiKey: string;
    try {
      await db.migrate.latest();
      ({ API_KEY: apiKey } = (await seedDemo(db, { keyFile: path.join(dir, 'demo-api-key') })) as { API_KEY: string });
    } finally {
      await db.destroy();
    }

    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      APP_ENV: 'test',
      // The run's own key: there is no built-in key (lib/config.ts requireApiSettings).
      AUTH_SIGNING_KEY: crypto.randomBytes(32).toString('base64url'),
      LOG_LEVEL: process.env.FUZZ_LOG_LEVEL ?? 'warn',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: dbUrl,
      DATABASE_POOL_MAX: '5',
      NATS_URL: TEST_NATS_URL,
      EVENTS_SUBJECT_PREFIX: `fuzz${id}`,
      EVENTS_STREAM: stream,
      EVENTS_MAX_AGE_MS: String(60 * 60 * 1000),
      EVENTS_DUPLICATE_WINDOW_MS: String(10 * 60 * 1000),
      TEMPORAL_ADDRESS: TEST_TEMPORAL_ADDRESS,
      TEMPORAL_TASK_QUEUE: `fuzz-${id}`,
      WORKER_METRICS_PORT: '0',
      // The fuzzer sends a few thousand calls a minute with one key: the organisation's rate
      // limit (6,000/min, burst 1,000) would turn most of them into 429s and test nothing.
      RATE_LIMIT_PER_MINUTE: '1000000',
      // Likewise the token operation's limit (per client address): the fuzzer calls it thousands of times.
      AUTH_TOKEN_RATE_LIMIT_PER_MINUTE: '1000000',
      AUTH_TOKEN_RATE_LIMIT_BURST: '100000',
    };
    say(`database ${dbName}, stream ${stream}, task queue fuzz-${id}; logs in ${path.relative(ROOT, dir)}/`);
    worker = startService('worker/main.ts', env, path.join(dir, 'worker.log'));
    api = startService('api/main.ts', env, path.join(dir, 'api.log'));
    await waitReady(base, [api, worker], 180_000);
    const token = await obtainToken(base, apiKey);
    say(`API ready on ${base} after ${((Date.now() - T0) / 1000).toFixed(0)} s; token obtained with the demo API key`);
    say(`example account ${await importExample(base, token, 120_000)} imported (PROCESSED)`);
    say(`example account ${await stageExample(base, token)} staged (STAGED)`);

    // FUZZ_SCHEMA fuzzes against another document (a file or URL; its operations are sent to this
    // API), with its own FUZZ_CONFIG: docs/platform-compatibility.md runs the platform's own
    // document this way. FUZZ_CHECKS narrows the checks (default: all, or the config file's).
    // schemathesis runs in the run's own folder: a file path is resolved here, a URL passed as it is.
    const schemaArg = process.env.FUZZ_SCHEMA;
    const schema = schemaArg && !/^https?:\/\//.test(schemaArg) ? path.resolve(schemaArg) : schemaArg;
    const args = [
      '--config-file', process.env.FUZZ_CONFIG ? path.resolve(process.env.FUZZ_CONFIG) : path.join(__dirname, 'schemathesis.toml'),
      'run', ...(schema ? [schema, '--url', base] : [`${base}/openapi.json`]),
      // Every check on our own document; with FUZZ_CONFIG the config file names its checks (a
      // check named here would override the file's per-operation settings), unless FUZZ_CHECKS does.
      ...(process.env.FUZZ_CHECKS || !process.env.FUZZ_CONFIG ? ['--checks', process.env.FUZZ_CHECKS || 'all'] : []),
      '--max-examples', String(maxExamples),
      '--seed', seed,
      '--generation-database', 'none',
      '--report', 'junit',
      '--report-junit-path', path.join(dir, 'junit.xml'),
      ...extra,
    ];
    say(`schemathesis ${args.join(' ')}`);
    say(`(FUZZ_SEED=${seed} npm run test:fuzz reruns the same examples)`);
    const t1 = Date.now();
    const code = await runSchemathesis(st, args, dir, { ...process.env, FUZZ_TOKEN: token });
    say(`schemathesis ${code === 0 ? 'passed' : `FAILED (exit ${code})`} in ${((Date.now() - t1) / 1000).toFixed(0)} s; whole run ${((Date.now() - T0) / 1000).toFixed(0)} s; report ${path.relative(ROOT, dir)}/junit.xml`);
    const answers = await answersSeen(base);
    say(`the API's answers during the run (route, method: status×count):\n  ${answers.join('\n  ')}`);
    // The API's own count is a second witness: a 5xx it recorded fails the run even when
    // schemathesis accepted the exchange.
    const serverErrors = answers.filter((a) => /: .*\b5\d\d×/.test(a));
    if (serverErrors.length > 0) say(`FAILED: the API counted 5xx answers:\n  ${serverErrors.join('\n  ')}`);
    const result = code !== 0 ? code : serverErrors.length > 0 ? 1 : 0;
    if (result !== 0) say(`the API's log: ${path.relative(ROOT, dir)}/api.log`);
    // The run's count for the test command's closing line (scripts/lib/testcount.js): one check per
    // operation schemathesis reported, plus the API's own 5xx count as one more.
    const junit = fs.existsSync(path.join(dir, 'junit.xml')) ? fs.readFileSync(path.join(dir, 'junit.xml'), 'utf8') : '';
    const cases = junitCases(junit);
    const failedCases = cases.filter((c) => /<(failure|error)\b/.test(c)).length + (serverErrors.length > 0 ? 1 : 0);
    const total = cases.length + 1;
    const failedAll = result !== 0 && failedCases === 0 ? 1 : failedCases;
    process.stdout.write(`fuzz: ${total - failedAll} passed, ${failedAll} failed\n`);
    return result;
  } finally {
    await Promise.all([stopService(api), stopService(worker)]);
    await dropEverything(dbName, stream);
  }
}

/** The <testcase> elements of a JUnit report, each with its body. */
function junitCases(xml: string): string[] {
  return [...xml.matchAll(/<testcase\b[^>]*?(?:\/>|>[\s\S]*?<\/testcase>)/g)].map((m) => m[0]);
}

async function dropEverything(dbName: string, stream: string): Promise<void> {
  const c = new pg.Client({ connectionString: TEST_PG_URL });
  await c.connect();
  await c.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`).finally(() => c.end());
  const nc = await connectNats(TEST_NATS_URL, 'fuzz-cleanup');
  const jsm = await jetstreamManager(nc);
  await jsm.streams.delete(stream).catch(() => undefined);
  await nc.close();
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`fuzz run failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
