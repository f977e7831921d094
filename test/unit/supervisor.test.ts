import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { restartDelayMs, Supervisor, type ChildExit, type ChildSpec } from '../../scripts/supervisor';

/** The supervisor with real (tiny) child processes: restarts, backoff, pid files, graceful stop. */

const FOREVER = 'setInterval(() => {}, 1000)';
const IGNORES_SIGTERM = `process.on('SIGTERM', () => {}); console.log('ready'); ${FOREVER}`;

function child(name: string, script: string, logFile?: string): ChildSpec {
  return { name, command: process.execPath, args: ['-e', script], logFile };
}

function exits(s: Supervisor, name: string, n: number): Promise<{ exit: ChildExit; restartInMs: number | null }[]> {
  const seen: { exit: ChildExit; restartInMs: number | null }[] = [];
  return new Promise((resolve) => {
    const on = (who: string, exit: ChildExit, restartInMs: number | null) => {
      if (who !== name) return;
      seen.push({ exit, restartInMs });
      if (seen.length === n) {
        s.off('exit', on);
        resolve(seen);
      }
    };
    s.on('exit', on);
  });
}

describe('Supervisor', () => {
  let dir: string;
  let s: Supervisor | undefined;
  let lines: string[];
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'supervisor-'));
    lines = [];
  });
  afterEach(async () => {
    await s?.stop();
    s = undefined;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('restarts a child killed with SIGKILL under a new pid, rewrites its pid file and logs the signal and the restart count', async () => {
    const logFile = path.join(dir, 'worker-1.log');
    s = new Supervisor({ children: [child('worker-1', FOREVER, logFile), child('api-1', FOREVER)], runDir: dir, backoff: { initialMs: 100 }, log: (l) => lines.push(l) });
    s.start();
    const first = await s.waitForStart('worker-1');
    const api = s.pid('api-1');
    expect(fs.readFileSync(path.join(dir, 'worker-1.pid'), 'utf8').trim()).toBe(String(first));

    const exited = exits(s, 'worker-1', 1);
    process.kill(first, 'SIGKILL');
    const [{ exit, restartInMs }] = await exited;
    expect(exit.signal).toBe('SIGKILL');
    expect(restartInMs).toBe(100);
    const second = await s.waitForStart('worker-1', { notPid: first, timeoutMs: 5000 });
    expect(second).not.toBe(first);
    expect(fs.readFileSync(path.join(dir, 'worker-1.pid'), 'utf8').trim()).toBe(String(second));
    expect(s.pid('api-1')).toBe(api); // the other children are left alone
    expect(s.status().find((c) => c.name === 'worker-1')).toMatchObject({ state: 'running', restarts: 1, pid: second });
    expect(lines.some((l) => /worker-1 exited \(signal SIGKILL\) .*restarting in 0\.1 s \(restart 1\)/.test(l))).toBe(true);
    expect(fs.readFileSync(logFile, 'utf8')).toMatch(/worker-1 exited \(signal SIGKILL\)/);
  });

  it('doubles the restart delay while a child keeps crashing at once, up to the cap', async () => {
    s = new Supervisor({ children: [child('crashy', 'process.exit(3)')], backoff: { initialMs: 20, maxMs: 100, resetAfterMs: 60_000 }, log: (l) => lines.push(l) });
    const seen = exits(s, 'crashy', 5);
    s.start();
    const got = await seen;
    expect(got.map((e) => e.restartInMs)).toEqual([20, 40, 80, 100, 100]);
    expect(got.every((e) => e.exit.code === 3)).toBe(true);
  });

  it('restarts after the initial delay again once the child had stayed up long enough', async () => {
    s = new Supervisor({ children: [child('steady', 'setTimeout(() => process.exit(1), 300)')], backoff: { initialMs: 20, maxMs: 1000, resetAfterMs: 200 } , log: (l) => lines.push(l) });
    const seen = exits(s, 'steady', 3);
    s.start();
    expect((await seen).map((e) => e.restartInMs)).toEqual([20, 20, 20]);
  });

  it('stops every child with SIGTERM, SIGKILLs one that ignores it after the grace period, and restarts none', async () => {
    const logFile = path.join(dir, 'stubborn.log');
    s = new Supervisor({ children: [child('polite', FOREVER), child('stubborn', IGNORES_SIGTERM, logFile)], runDir: dir, stopGraceMs: 500, log: (l) => lines.push(l) });
    s.start();
    await s.waitForStart('polite');
    await s.waitForStart('stubborn');
    // The stubborn child has installed its handler once it says so.
    while (!(fs.existsSync(logFile) && fs.readFileSync(logFile, 'utf8').includes('ready'))) await new Promise((r) => setTimeout(r, 20));
    const t0 = Date.now();
    await s.stop();
    const status = Object.fromEntries(s.status().map((c) => [c.name, c]));
    expect(status.polite).toMatchObject({ state: 'stopped', pid: null });
    expect(status.polite!.lastExit!.signal).toBe('SIGTERM');
    expect(status.stubborn!.lastExit!.signal).toBe('SIGKILL');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(500);
    expect(fs.readdirSync(dir).filter((f) => f.endsWith('.pid'))).toEqual([]);
    await new Promise((r) => setTimeout(r, 100));
    expect(s.status().every((c) => c.pid === null)).toBe(true);
  });

  it('computes capped exponential delays', () => {
    expect([0, 1, 2, 5, 6, 10].map((a) => restartDelayMs(a))).toEqual([1000, 2000, 4000, 30_000, 30_000, 30_000]);
  });
});
