import crypto from 'node:crypto';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { eventually, silentLog, startStack, type Stack } from '../support/stack';
import { uniqueAccount } from '../support/fixtures';
import { testWorkflowBundle } from '../support/workflowBundle';
import { runCli } from '../unit/cli/runCli';
import { findProcess } from '../../imports/store';
import { createWorker, createWorkerActivities } from '../../worker/createWorker';
import { databaseValidator } from '../../suppliers/databaseValidator';
import { createMailer } from '../../emails/mailer';
import { waitForVersion } from '../../deploys/versions';
import { accountImport } from '../../workflows/accountImport';
import { ExternalAccountNumberKey } from '../../workflows/searchAttributes';
import type { DeployStatus } from '../../deploys/status';

/**
 * Worker Versioning on the real Temporal server (docs/deploys.md): two builds of the worker on
 * one task queue, the rollout steps done with the operator CLI (`data-import deploy …`).
 * An import that started on build A finishes on A after B becomes current, while new imports
 * start on B; a rollback makes A current again while B's imports finish on B; a ramp sends the
 * expected share of new imports to the ramping build.
 */

const E = temporal.api.enums.v1;

describe('worker versioning: builds side by side', () => {
  let s: Stack;
  let env: Record<string, string>;
  const extra: { worker: Worker; run: Promise<void> }[] = [];

  /** A second worker of the stack's task queue, of another build (the same code, another version). */
  async function startBuild(buildId: string): Promise<void> {
    const connection = await NativeConnection.connect({ address: s.config.temporal.address });
    const mail = createMailer(s.config.email);
    const worker = await createWorker({
      connection,
      namespace: s.config.temporal.namespace,
      taskQueue: s.taskQueue,
      workflowBundlePath: testWorkflowBundle(),
      activities: createWorkerActivities({ db: s.t.db, validator: databaseValidator({ db: s.t.db, cache: s.cache }), subjectPrefix: s.subjectPrefix, log: silentLog, mail }),
      version: { deploymentName: s.config.temporal.deploymentName, buildId },
    });
    const run = worker.run().finally(() => {
      mail.transport.close();
      return connection.close();
    });
    extra.push({ worker, run });
    await waitForVersion(s.client, s.config.temporal.deploymentName, buildId);
  }

  beforeAll(async () => {
    // The stack's own worker is build A; being the first, it makes itself current.
    s = await startStack({ buildId: 'A' });
    env = {
      APP_ENV: 'test',
      DATABASE_URL: s.t.url,
      TEMPORAL_ADDRESS: s.config.temporal.address,
      TEMPORAL_NAMESPACE: s.config.temporal.namespace,
      TEMPORAL_TASK_QUEUE: s.taskQueue,
    };
  }, 120_000);

  afterAll(async () => {
    for (const w of extra) if (w.worker.getState() === 'RUNNING') w.worker.shutdown();
    await Promise.all(extra.map((w) => w.run));
    await s.stop();
  }, 120_000);

  const cli = async (...args: string[]) => {
    const r = await runCli(['deploy', ...args], env);
    if (r.code !== 0) throw new Error(`deploy ${args.join(' ')} exited ${r.code}: ${r.stderr}${r.stdout}`);
    return r.stdout;
  };
  const status = async () => JSON.parse(await cli('status', '--json')) as DeployStatus;

  /** An import through the API; `inSeconds` puts its schedule window that far ahead (it waits PENDING). */
  async function create(ext: string, inSeconds = 0): Promise<void> {
    const body = inSeconds
      ? { payload: uniqueAccount(ext), task_params: { schedule_window_start: new Date(Date.now() + inSeconds * 1000).toISOString() } }
      : uniqueAccount(ext);
    const res = await s.request().post('/v2/data-import/accounts/').send(body);
    expect(res.status).toBe(201);
  }

  const workflowId = (ext: string) => `account-import:DEMO_ENERGY:${ext}`;

  /** The build the import's workflow is pinned to, once its first workflow task completed. */
  const pinnedTo = (ext: string) =>
    eventually(async () => {
      const d = await s.client.workflowService.describeWorkflowExecution({ namespace: s.config.temporal.namespace, execution: { workflowId: workflowId(ext) } });
      const v = d.workflowExecutionInfo?.versioningInfo;
      return v?.behavior === E.VersioningBehavior.VERSIONING_BEHAVIOR_PINNED ? v.deploymentVersion?.buildId : undefined;
    }, 30_000, 200);

  /** The builds that completed the workflow's tasks, from its history. */
  async function buildsThatRan(ext: string): Promise<string[]> {
    const history = await s.client.workflow.getHandle(workflowId(ext)).fetchHistory();
    const builds = (history.events ?? []).filter((e) => e.workflowTaskCompletedEventAttributes).map((e) => e.workflowTaskCompletedEventAttributes!.deploymentVersion?.buildId ?? '(none)');
    return [...new Set(builds)];
  }

  /** PROCESSED in PostgreSQL, and its workflow closed (the post-import steps come after the status). */
  const processed = async (ext: string) => {
    await eventually(async () => (await findProcess(s.t.db, 'DEMO_ENERGY', ext))?.status === 'PROCESSED', 90_000, 250);
    await s.client.workflow.getHandle(workflowId(ext)).result();
  };

  it('the first worker made its build current; deploy status shows it with its worker', async () => {
    const st = await status();
    expect(st.deployment).toBe(s.taskQueue);
    expect(st.current_build_id).toBe('A');
    expect(st.builds.find((b) => b.build_id === 'A')).toMatchObject({ status: 'CURRENT', workers: 1 });
  });

  it('an import started on A finishes on A after B becomes current; a new import starts and finishes on B', async () => {
    await startBuild('B');
    const early = s.ext('PIN-A');
    await create(early, 12);
    expect(await pinnedTo(early)).toBe('A');

    const out = await cli('set-current', 'B');
    expect(out).toContain('Build B is now current');
    expect(out).toContain(`temporal worker deployment set-current-version --deployment-name ${s.taskQueue} --build-id B`);
    // Still waiting for its window when the routing changed: the rest of it runs after the switch.
    expect((await findProcess(s.t.db, 'DEMO_ENERGY', early))?.status).toBe('PENDING');

    const late = s.ext('NEW-B');
    await create(late);
    expect(await pinnedTo(late)).toBe('B');
    await processed(late);
    await processed(early);
    expect(await buildsThatRan(early)).toEqual(['A']);
    expect(await buildsThatRan(late)).toEqual(['B']);

    const st = await eventually(async () => {
      const x = await status();
      return x.builds.find((b) => b.build_id === 'A')?.open_imports === 0 ? x : undefined;
    });
    expect(st.current_build_id).toBe('B');
    expect(['DRAINING', 'DRAINED']).toContain(st.builds.find((b) => b.build_id === 'A')!.status);
    // Nothing open on A any more: drained by the service's own count, at once.
    const drain = await runCli(['deploy', 'drain-status', 'A', '--wait', '30', '--json'], env);
    expect(drain.code).toBe(0);
    expect(JSON.parse(drain.stdout)).toMatchObject({ drained: true, builds: [{ build_id: 'A', open_imports: 0, drained: true }] });
    // The current build is never drained.
    expect((await runCli(['deploy', 'drain-status', 'B'], env)).code).toBe(1);
  }, 180_000);

  it('rollback makes A current again: new imports start on A, imports already on B finish on B', async () => {
    const onB = s.ext('PIN-B');
    await create(onB, 10);
    expect(await pinnedTo(onB)).toBe('B');

    const out = await cli('rollback');
    expect(out).toContain('Build A is now current');
    expect(out).toContain('rolled back from B');
    expect((await status()).current_build_id).toBe('A');

    const after = s.ext('AFTER-ROLLBACK');
    await create(after);
    await processed(after);
    await processed(onB);
    expect(await buildsThatRan(after)).toEqual(['A']);
    expect(await buildsThatRan(onB)).toEqual(['B']);
  }, 180_000);

  it('a ramp of 30 % sends about 30 % of new imports to the ramping build', async () => {
    expect(await cli('ramp', 'B', '30')).toContain('30 % of new imports now start on B');
    const st = await status();
    expect(st.ramping).toEqual({ build_id: 'B', percentage: 30 });

    // Imports whose window opens in a day: each takes its first workflow task (and with it its
    // build) and then waits. Started directly, one tag on all of them to count them by build.
    const n = 300;
    const tag = `RAMP-${crypto.randomBytes(4).toString('hex')}`;
    const ids = Array.from({ length: n }, (_, i) => `ramp-${tag}-${i}`);
    const window = { scheduleWindowStart: new Date(Date.now() + 86_400_000).toISOString(), scheduleWindowEnd: new Date(Date.now() + 2 * 86_400_000).toISOString() };
    for (let i = 0; i < n; i += 25) {
      await Promise.all(
        ids.slice(i, i + 25).map((workflowId, j) =>
          s.client.workflow.start(accountImport, {
            workflowId,
            taskQueue: s.taskQueue,
            args: [{ importProcessId: `${tag}-${i + j}`, run: 1, importSupplier: 'DEMO_ENERGY', externalAccountNumber: workflowId, isDryRun: false, ...window }],
            typedSearchAttributes: [{ key: ExternalAccountNumberKey, value: tag }],
          }),
        ),
      );
    }
    const count = async (build: string) =>
      (await s.client.workflow.count(`ExternalAccountNumber = '${tag}' AND TemporalWorkerDeploymentVersion = '${s.config.temporal.deploymentName}:${build}'`)).count;
    const [onA, onB] = await eventually(async () => {
      const c = [await count('A'), await count('B')];
      return c[0]! + c[1]! === n ? c : undefined;
    }, 120_000, 1000);
    process.stderr.write(`ramp 30 %: ${onB} of ${n} new imports on B, ${onA} on A\n`);
    // Binomial(300, 0.3): mean 90, standard deviation 7.9; five deviations either side.
    expect(onB).toBeGreaterThanOrEqual(50);
    expect(onB).toBeLessThanOrEqual(130);
    expect(onA).toBe(n - onB);

    expect(await cli('ramp', '--stop')).toContain('Ramp of B ended');
    expect((await status()).ramping).toBeNull();
    await Promise.all(ids.map((id) => s.client.workflow.getHandle(id).terminate('ramp test done')));
  }, 240_000);

  it('refuses what cannot be done, with a one-line error', async () => {
    const unknown = await runCli(['deploy', 'set-current', 'NOPE'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^data-import: build NOPE is not a version of \S+ \(known: (A, B|B, A)\)/);
    expect((await runCli(['deploy', 'ramp', 'A', '10'], env)).stderr).toContain('already current');
    expect((await runCli(['deploy', 'ramp', 'B', '101'], env)).code).toBe(1);
  });
});
