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
 * to fuzz with, its schemathesis config, the checks; docs/platform-compatibility.md), FUZZ_PARTIAL=1
 * (an operation of the document missing from the run is skipped, not failed). Arguments after `--`
 * go to `schemathesis run`; `--plan` prints the document's operations and stops.
 * Every operation of the document must be in the run (test/fuzz/operations.ts).
 * What the checks mean and which do not apply where: docs/api-fuzzing.md.
 */
import { spawn, spawnSync, ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import pg from 'pg';
import { createDb, ensureDatabase } from '../../db/knex';
import { connectNats } from '../../events/nats';
import { seedDemo } from '../../scripts/seedDemo';
import { buildOpenApiDocument } from '../../api/openapi';
import { documentOperations, junitOutcomes, operationResults, requestCounts } from './operations';
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
function answersSeen(counts: Map<string, Map<string, number>>): string[] {
  return [...counts]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([op, statuses]) => `${op}: ${[...statuses].map(([status, n]) => `${status}×${n}`).join(' ')}`);
}

const metricsOf = async (base: string) => requestCounts(await (await fetch(`${base}/metrics`)).text());

/**
 * The document the run fuzzes: FUZZ_SCHEMA (a JSON or YAML file, or a URL), or this service's own
 * (as `/openapi.json` serves it: from `base`, or built in-process for `--plan`). A YAML document is
 * read with the venv's Python (PyYAML comes with schemathesis).
 */
async function fuzzedDocument(schema: string | undefined, base: string | null): Promise<{ paths?: Record<string, Record<string, unknown>> }> {
  if (!schema) return base ? ((await (await fetch(`${base}/openapi.json`)).json()) as Record<string, never>) : (buildOpenApiDocument() as Record<string, never>);
  const text = /^https?:\/\//.test(schema) ? await (await fetch(schema)).text() : fs.readFileSync(schema, 'utf8');
  try {
    return JSON.parse(text) as Record<string, never>;
  } catch {
    const python = path.join(path.dirname(process.env.SCHEMATHESIS ?? path.join(ROOT, '.venv', 'bin', 'schemathesis')), 'python');
    const r = spawnSync(python, ['-c', 'import json, sys, yaml; print(json.dumps(yaml.safe_load(sys.stdin.read()), default=str))'], { input: text, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${schema} is neither JSON nor YAML the venv's Python reads: ${r.stderr}`);
    return JSON.parse(r.stdout) as Record<string, never>;
  }
}

function runSchemathesis(bin: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { cwd, env, stdio: 'inherit' });
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

async function main(): Promise<number> {
  // schemathesis runs in the run's own folder: a file path is resolved here, a URL passed as it is.
  const schemaArg = process.env.FUZZ_SCHEMA;
  const schema = schemaArg && !/^https?:\/\//.test(schemaArg) ? path.resolve(schemaArg) : schemaArg;
  if (process.argv.includes('--plan')) {
    // The units of the test command's count (scripts/test.sh), known without running anything.
    const ops = documentOperations(await fuzzedDocument(schema, null));
    process.stdout.write(`fuzz: planned ${ops.length} (the operations of ${schemaArg ?? 'the OpenAPI document'})\n`);
    return 0;
  }
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
    // Every operation of that document must be in the run (read now, as the API serves it).
    const expected = documentOperations(await fuzzedDocument(schema, base));
    const before = await metricsOf(base);
    // That read is counted once it is answered: it is the run's own, not a case.
    const ownRead = before.get('GET /metrics') ?? new Map<string, number>();
    before.set('GET /metrics', ownRead.set('200', (ownRead.get('200') ?? 0) + 1));
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
    const after = await metricsOf(base);
    say(`the API's answers during the run (route, method: status×count):\n  ${answersSeen(after).join('\n  ')}`);
    // The API's own count is a second witness: a 5xx it recorded fails the run even when
    // schemathesis accepted the exchange (on an operation of the document, that operation fails).
    const serverErrors = answersSeen(after).filter((a) => /: .*\b5\d\d×/.test(a));
    if (serverErrors.length > 0) say(`FAILED: the API counted 5xx answers:\n  ${serverErrors.join('\n  ')}`);
    // The run's count for the test command's closing line (scripts/lib/testcount.js): one unit per
    // operation of the document, with the requests the API counted on it (its cases). A missing
    // operation fails, unless FUZZ_PARTIAL=1 (a run narrowed on purpose: it is skipped).
    const junitPath = path.join(dir, 'junit.xml');
    const junit = junitOutcomes(fs.existsSync(junitPath) ? fs.readFileSync(junitPath, 'utf8') : '');
    const ops = operationResults(expected, junit, before, after, process.env.FUZZ_PARTIAL === '1' ? 'skipped' : 'failed', schema ? undefined : 'GET /openapi.json');
    const width = Math.max(...ops.map((r) => r.operation.length));
    say(`the operations of the document (${ops.length}), with the requests the API counted on each during schemathesis:\n  ${ops
      .map((r) => `${r.operation.padEnd(width)} ${String(r.cases).padStart(6)} cases  ${r.outcome}${r.why ? ` (${r.why})` : ''}  ${r.statuses}`)
      .join('\n  ')}`);
    const counted = { passed: ops.filter((r) => r.outcome === 'passed').length, failed: ops.filter((r) => r.outcome === 'failed').length, skipped: ops.filter((r) => r.outcome === 'skipped').length };
    const cases = ops.reduce((n, r) => n + r.cases, 0);
    const runFailed = code !== 0 || serverErrors.length > 0 || counted.failed > 0;
    // A failure outside the operations (schemathesis' exit, a 5xx on no documented route) is one unit more.
    if (runFailed && counted.failed === 0) counted.failed = 1;
    const result = runFailed ? (code !== 0 ? code : 1) : 0;
    if (result !== 0) say(`the API's log: ${path.relative(ROOT, dir)}/api.log`);
    say(`${cases} cases over ${ops.length} operations; ${counted.failed ? `${counted.failed} failed` : 'none failed'}${counted.skipped ? `, ${counted.skipped} skipped (FUZZ_PARTIAL=1)` : ''}`);
    process.stdout.write(`fuzz: ${counted.passed} passed, ${counted.failed} failed${counted.skipped ? `, ${counted.skipped} skipped` : ''}\n`);
    return result;
  } finally {
    await Promise.all([stopService(api), stopService(worker)]);
    await dropEverything(dbName, stream);
  }
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
