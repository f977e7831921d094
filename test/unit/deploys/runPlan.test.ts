import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DeployStatus, BuildRow } from '../../../deploys/status';
import { decideRouting, isDrained, isGoneLocalPoller, liveWorkers, planOldBuilds } from '../../../deploys/runPlan';
import { keepBuild, keptBuild, keptBuilds } from '../../../deploys/builds';

/** What npm run up does about older builds (deploys/runPlan.ts) and how it keeps builds (deploys/builds.ts). */

const row = (build_id: string, open_imports: number, extra: Partial<BuildRow> = {}): BuildRow => ({
  build_id,
  status: 'DRAINING',
  workers: 0,
  open_imports,
  open_workflows: open_imports,
  created_at: null,
  current_since: null,
  ramping_since: null,
  deactivated_at: null,
  ...extra,
});

const status = (current: string | null, builds: BuildRow[], ramping: DeployStatus['ramping'] = null): DeployStatus => ({
  deployment: 'data-import',
  namespace: 'default',
  task_queue: 'data-import',
  current_build_id: current,
  ramping,
  routing_updating: false,
  builds,
  unassigned_open_imports: 0,
  open_imports: builds.reduce((n, b) => n + b.open_imports, 0),
});

describe('planOldBuilds', () => {
  it('runs an older kept build with open imports, and names the ones it cannot run', () => {
    const s = status('A', [row('B', 0), row('A', 12), row('Z', 3), row('Y', 0)]);
    const plan = planOldBuilds({ status: s, thisBuild: 'B', kept: new Set(['A', 'Y']), asked: [], oldWorkers: 1 });
    expect(plan.run).toEqual([{ buildId: 'A', reason: 'open-imports', openImports: 12 }]);
    expect(plan.stranded).toEqual([{ buildId: 'Z', openImports: 3, why: 'not-kept' }]);
    expect(plan.missing).toEqual([]);
  });

  it('never runs this build as an old one, and runs none with --old-workers 0', () => {
    const s = status('A', [row('B', 5), row('A', 2)]);
    const plan = planOldBuilds({ status: s, thisBuild: 'B', kept: new Set(['A', 'B']), asked: [], oldWorkers: 0 });
    expect(plan.run).toEqual([]);
    expect(plan.stranded).toEqual([{ buildId: 'A', openImports: 2, why: 'old-workers-off' }]);
  });

  it('runs an asked build whatever is open on it, once, and reports one that is not kept', () => {
    const s = status('B', [row('B', 0), row('A', 4)]);
    const plan = planOldBuilds({ status: s, thisBuild: 'B', kept: new Set(['A']), asked: ['A', 'A', 'Q'], oldWorkers: 1 });
    expect(plan.run).toEqual([{ buildId: 'A', reason: 'asked', openImports: 4 }]);
    expect(plan.missing).toEqual(['Q']);
  });

  it('plans nothing when the deployment could not be read', () => {
    expect(planOldBuilds({ status: null, thisBuild: 'B', kept: new Set(['A']), asked: [], oldWorkers: 1 })).toEqual({ run: [], stranded: [], missing: [] });
  });
});

describe('decideRouting', () => {
  const base = { thisBuild: 'B', runningHere: new Set<string>(), liveElsewhere: () => 0, promote: true };
  it('makes this build current when the current one has no workers anywhere', () => {
    expect(decideRouting({ ...base, status: status('A', [row('A', 0), row('B', 0)]) })).toEqual({ action: 'promote', from: 'A' });
    expect(decideRouting({ ...base, promote: false, status: status('A', [row('A', 0)]) })).toEqual({ action: 'warn', from: 'A' });
  });
  it('leaves routing to the operator while the current build has workers, here or elsewhere, or a ramp is set', () => {
    expect(decideRouting({ ...base, runningHere: new Set(['A']), status: status('A', [row('A', 3)]) })).toEqual({ action: 'none', why: 'current-runs-here' });
    expect(decideRouting({ ...base, liveElsewhere: (b) => (b === 'A' ? 1 : 0), status: status('A', [row('A', 0)]) })).toEqual({ action: 'none', why: 'current-runs-elsewhere' });
    expect(decideRouting({ ...base, status: status('A', [row('A', 0)], { build_id: 'B', percentage: 10 }) })).toEqual({ action: 'none', why: 'ramping' });
  });
  it('does nothing when this build is current or none is (the worker takes it then)', () => {
    expect(decideRouting({ ...base, status: status('B', [row('B', 0)]) })).toEqual({ action: 'none', why: 'this-current' });
    expect(decideRouting({ ...base, status: status(null, []) })).toEqual({ action: 'none', why: 'none-current' });
  });
});

describe('pollers', () => {
  const now = Date.parse('2025-01-01T12:00:00Z');
  const alive = (pid: number) => pid === 100;
  it('counts a stopped worker of this host as gone, a worker of another host as live', () => {
    expect(isGoneLocalPoller('200@here', 'here', alive)).toBe(true);
    expect(isGoneLocalPoller('100@here', 'here', alive)).toBe(false);
    expect(isGoneLocalPoller('200@there', 'here', alive)).toBe(false);
    expect(isGoneLocalPoller('custom-identity', 'here', alive)).toBe(false);
  });
  it('lists the live workers of a build: recent, distinct, not gone', () => {
    const at = (s: number) => new Date(now - s * 1000);
    const pollers = [
      { buildId: 'A', identity: '100@here', lastAccessAt: at(5) },
      { buildId: 'A', identity: '100@here', lastAccessAt: at(1) },
      { buildId: 'A', identity: '200@here', lastAccessAt: at(5) },
      { buildId: 'A', identity: '300@there', lastAccessAt: at(500) },
      { buildId: 'B', identity: '400@there', lastAccessAt: at(5) },
    ];
    expect(liveWorkers(pollers, 'A', { now, recentMs: 120_000, hostname: 'here', pidAlive: alive })).toEqual(['100@here']);
  });
});

describe('isDrained', () => {
  it('is drained only when neither current nor ramping and nothing is open on it', () => {
    expect(isDrained(status('B', [row('A', 0)]), 'A')).toBe(true);
    expect(isDrained(status('B', [row('A', 0, { open_workflows: 1 })]), 'A')).toBe(false);
    expect(isDrained(status('A', [row('A', 0)]), 'A')).toBe(false);
    expect(isDrained(status('B', [row('A', 0)], { build_id: 'A', percentage: 5 }), 'A')).toBe(false);
    expect(isDrained(status('B', []), 'A')).toBe(false);
  });
});

describe('keepBuild', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'builds-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const fakeDist = (buildId: string) => {
    const d = path.join(dir, `dist-${buildId}`);
    fs.mkdirSync(path.join(d, 'worker'), { recursive: true });
    fs.mkdirSync(path.join(d, 'test'), { recursive: true });
    fs.writeFileSync(path.join(d, 'build-info.json'), JSON.stringify({ buildId, commit: null, dirty: false, source: 'WORKER_BUILD_ID', builtAt: new Date().toISOString() }));
    fs.writeFileSync(path.join(d, 'workflow-bundle.js'), '// bundle');
    fs.writeFileSync(path.join(d, 'worker', 'main.js'), '// worker');
    fs.writeFileSync(path.join(d, 'test', 'x.js'), '// not kept');
    return d;
  };

  it('copies a build under its id once, without its tests, and lists it', () => {
    const into = path.join(dir, 'builds');
    const first = keepBuild(fakeDist('build-a'), into);
    expect(first.created).toBe(true);
    expect(fs.existsSync(path.join(into, 'build-a', 'worker', 'main.js'))).toBe(true);
    expect(fs.existsSync(path.join(into, 'build-a', 'test'))).toBe(false);
    expect(keepBuild(fakeDist('build-a'), into).created).toBe(false);
    fs.mkdirSync(path.join(into, 'half-written'));
    expect(keptBuilds(into).map((b) => b.buildId)).toEqual(['build-a']);
    expect(keptBuild('build-a', into)?.dir).toBe(path.join(into, 'build-a'));
    expect(keptBuild('nope', into)).toBeNull();
  });

  it('refuses a folder that holds no complete build', () => {
    fs.mkdirSync(path.join(dir, 'empty'));
    expect(() => keepBuild(path.join(dir, 'empty'), path.join(dir, 'builds'))).toThrow(/no complete build/);
  });
});
