import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import request from 'supertest';
import { eventually, startStack, type Stack } from '../support/stack';
import { stackProcessEnv } from '../support/processEnv';
import { uniqueAccount } from '../support/fixtures';
import { Supervisor } from '../../scripts/supervisor';
import { serviceChildren } from '../../scripts/supervise';

/**
 * Worker processes side by side on one host, as `npm run up --workers 2` runs them (real
 * processes, the test run's Temporal server): each comes up with its own metrics ports, both poll
 * the task queue, one killed with SIGKILL is restarted, and a third started by hand with no port
 * variable falls back to free ports instead of failing with EADDRINUSE.
 */

interface Running {
  metricsPort: number;
  sdkMetricsPort: number;
}

/** The ports of the n-th "worker running" line of a worker's log. */
async function running(logFile: string, n = 1): Promise<Running> {
  return eventually(
    async () => {
      const text = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '';
      const lines = text.split('\n').filter((l) => l.includes('"worker running"'));
      return lines.length >= n ? (JSON.parse(lines[n - 1]!) as Running) : undefined;
    },
    90_000,
    250,
  );
}

async function get(port: number, p: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`http://127.0.0.1:${port}${p}`);
  return { status: res.status, text: await res.text() };
}

describe('two worker processes on one host', () => {
  let s: Stack;
  let dir: string;
  let supervisor: Supervisor;
  let byHand: ChildProcess | undefined;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    s = await startStack({ worker: false, relay: false });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'two-workers-'));
    env = stackProcessEnv(s, { LOG_LEVEL: 'info' });
    supervisor = new Supervisor({
      children: serviceChildren({ workers: 2, apiReplicas: 0, env, logDir: dir }),
      runDir: dir,
      backoff: { initialMs: 200 },
      stopGraceMs: 20_000,
      log: () => undefined,
    });
    supervisor.start();
  }, 120_000);

  afterAll(async () => {
    byHand?.kill('SIGTERM');
    await supervisor.stop();
    await s.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('both come up on their own metrics ports, both poll the task queue, and they import', async () => {
    const [one, two] = await Promise.all([running(path.join(dir, 'worker-1.log')), running(path.join(dir, 'worker-2.log'))]);
    const ports = [one.metricsPort, one.sdkMetricsPort, two.metricsPort, two.sdkMetricsPort];
    expect(new Set(ports).size).toBe(4);
    for (const p of [one.metricsPort, two.metricsPort]) expect((await get(p, '/metrics')).text).toContain('data_import_events_published_total');
    for (const p of [one.sdkMetricsPort, two.sdkMetricsPort]) expect((await get(p, '/metrics')).status).toBe(200);

    const pollers = await eventually(async () => {
      const res = await s.connection.workflowService.describeTaskQueue({
        namespace: 'default',
        taskQueue: { name: s.taskQueue },
        taskQueueType: 1, // TASK_QUEUE_TYPE_WORKFLOW
      });
      const ids = new Set((res.pollers ?? []).map((p) => p.identity));
      return ids.size >= 2 ? ids : undefined;
    }, 30_000, 500);
    const pids = [supervisor.pid('worker-1'), supervisor.pid('worker-2')];
    for (const pid of pids) expect([...pollers].some((id) => id?.startsWith(`${pid}@`))).toBe(true);

    const ext = s.ext('TWO-WORKERS');
    expect((await s.request().post('/v2/data-import/accounts/').send(uniqueAccount(ext))).status).toBe(201);
    await eventually(async () => (await s.request().get(`/v2/data-import/accounts/DEMO_ENERGY/${ext}/`)).body.status === 'PROCESSED', 60_000, 250);
  }, 150_000);

  it('restarts a worker killed with SIGKILL, and it comes up again', async () => {
    const before = supervisor.pid('worker-2')!;
    process.kill(before, 'SIGKILL');
    const after = await supervisor.waitForStart('worker-2', { notPid: before, timeoutMs: 10_000 });
    expect(after).not.toBe(before);
    expect(fs.readFileSync(path.join(dir, 'worker-2.pid'), 'utf8').trim()).toBe(String(after));
    const again = await running(path.join(dir, 'worker-2.log'), 2);
    expect((await get(again.metricsPort, '/healthz')).status).toBe(200);
    expect(fs.readFileSync(path.join(dir, 'worker-2.log'), 'utf8')).toMatch(/worker-2 exited \(signal SIGKILL\).*\(restart 1\)/);
  }, 120_000);

  it('a third worker started by hand with no port variable falls back to free metrics ports', async () => {
    const one = await running(path.join(dir, 'worker-1.log'));
    const logFile = path.join(dir, 'by-hand.log');
    const out = fs.openSync(logFile, 'a');
    // The same environment as worker-1 asks for its ports: 9464 and 9465, taken by worker-1 when it got them.
    byHand = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, '../../worker/main.ts')], { env: { ...env, WORKER_METRICS_PORT: String(one.metricsPort) }, stdio: ['ignore', out, out] });
    fs.closeSync(out);
    const third = await running(logFile);
    expect(third.metricsPort).not.toBe(one.metricsPort);
    expect(third.sdkMetricsPort).not.toBe(one.sdkMetricsPort);
    expect((await get(third.metricsPort, '/healthz')).status).toBe(200);
    expect(byHand.exitCode).toBeNull();
  }, 120_000);
});
