import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Supervisor } from '../../../scripts/supervisor';
import { serviceChildren } from '../../../scripts/supervise';

/** The run command's part of a rollout: an old build's workers beside the new ones, retired once drained. */

describe('serviceChildren with an older build', () => {
  it('runs the old build from its kept copy, after this build\'s workers, never as the current build', () => {
    const children = serviceChildren({
      workers: 2,
      apiReplicas: 1,
      env: { WORKER_BUILD_ID: 'new', WORKER_METRICS_PORT: '9500' },
      root: '/srv/di/dist',
      oldBuilds: [{ buildId: 'old', dir: '/srv/di/data/builds/old', workers: 1 }],
      workerNodeOptions: [],
      apiNodeOptions: [],
    });
    expect(children.map((c) => c.name)).toEqual(['api-1', 'worker-1', 'worker-2', 'worker-old-1']);
    const old = children[3]!;
    expect(old.args.join(' ')).toContain(path.join('/srv/di/data/builds/old', 'worker', 'main'));
    expect(old.env!.WORKER_BUILD_ID).toBeUndefined();
    expect(old.env!.WORKER_BECOME_CURRENT).toBe('never');
    expect(old.env!.WORKER_METRICS_PORT).toBe('9504');
    expect(children[2]!.env!.WORKER_BUILD_ID).toBe('new');
  });
});

describe('Supervisor.retire', () => {
  it('stops one child for good while the others keep running', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'retire-'));
    const forever = { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] };
    const s = new Supervisor({ children: [{ name: 'a', ...forever }, { name: 'b', ...forever }], runDir: dir, backoff: { initialMs: 50 }, stopGraceMs: 2000, log: () => undefined });
    try {
      s.start();
      await s.waitForStart('b', { timeoutMs: 5000 });
      await s.retire('b');
      await new Promise((r) => setTimeout(r, 300));
      const st = Object.fromEntries(s.status().map((x) => [x.name, x]));
      expect(st.b!.state).toBe('stopped');
      expect(st.b!.restarts).toBe(0);
      expect(st.a!.state).toBe('running');
      expect(fs.existsSync(path.join(dir, 'b.pid'))).toBe(false);
    } finally {
      await s.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
