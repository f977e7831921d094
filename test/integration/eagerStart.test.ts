/**
 * Eager workflow start (API_EAGER_START, api/eagerStart.ts) on the real Temporal server: the API's
 * hosted worker gets the import's first workflow task with the start and runs the import alone
 * (the stack's worker stopped); starts stop asking for it once another build is current, and those
 * imports go through the task queue to that build. The kill of an API holding eager tasks is the
 * fault suite's `eager` scenario.
 */
import request from 'supertest';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { eventually, silentLog, startStack, type Stack } from '../support/stack';
import { uniqueAccount } from '../support/fixtures';
import { findProcess } from '../../imports/store';
import { createApp } from '../../api/app';
import { startEagerStart, type EagerStart } from '../../api/eagerStart';
import { currentBuild } from '../../lib/buildInfo';
import { createWorker, createWorkerActivities } from '../../worker/createWorker';
import { databaseValidator } from '../../suppliers/databaseValidator';
import { setCurrentVersion, waitForRouting, waitForVersion } from '../../deploys/versions';

describe('eager workflow start (API_EAGER_START)', () => {
  let s: Stack;
  let eager: EagerStart;
  const own = currentBuild().buildId;
  let other: { worker: Worker; run: Promise<void> } | undefined;

  beforeAll(async () => {
    // The stack's worker (this build) makes the build current, then leaves: the API's hosted
    // worker is the only worker of this build on the task queue.
    s = await startStack({ buildId: own });
    await s.stopWorker();
    eager = await startEagerStart({ config: s.config, log: silentLog, metrics: s.deps.metrics, db: s.t.db, referenceData: s.cache });
  }, 180_000);

  afterAll(async () => {
    await eager?.shutdown();
    if (other && other.worker.getState() === 'RUNNING') other.worker.shutdown();
    await other?.run;
    await s?.stop();
  }, 120_000);

  const eagerCount = async (outcome: 'eager' | 'fallback') => (await s.deps.metrics.eagerStarts.get()).values.find((v) => v.labels.outcome === outcome)?.value ?? 0;
  const app = () => createApp({ ...s.deps, eagerStart: { client: eager.client, policy: eager.policy } });
  const create = async (ext: string) => {
    const res = await request.agent(app().callback()).set(await s.authHeader('DEMO_ENERGY')).post('/v2/data-import/accounts/').send(uniqueAccount(ext));
    expect(res.status).toBe(201);
  };
  const workflowId = (ext: string) => `account-import:DEMO_ENERGY:${ext}`;

  it('asks for eager start while its build is current; the hosted worker runs the import', async () => {
    expect(eager.allowed()).toBe(true);
    const ext = s.ext('EAGER-1');
    await create(ext);
    expect(await eagerCount('eager')).toBe(1);
    expect(await eagerCount('fallback')).toBe(0);
    await eventually(async () => (await findProcess(s.t.db, 'DEMO_ENERGY', ext))?.status === 'PROCESSED', 60_000, 200);
    await s.client.workflow.getHandle(workflowId(ext)).result();
    // Every workflow task ran on this build, whose only worker is the API's.
    const history = await s.client.workflow.getHandle(workflowId(ext)).fetchHistory();
    const completed = (history.events ?? []).filter((e) => e.workflowTaskCompletedEventAttributes);
    expect(completed.length).toBeGreaterThan(0);
    expect(completed.every((e) => e.workflowTaskCompletedEventAttributes!.deploymentVersion?.buildId === own)).toBe(true);
  }, 90_000);

  it('stops asking once another build is current: the import goes through the task queue to that build', async () => {
    const connection = await NativeConnection.connect({ address: s.config.temporal.address });
    const worker = await createWorker({
      connection,
      namespace: s.config.temporal.namespace,
      taskQueue: s.taskQueue,
      activities: createWorkerActivities({ db: s.t.db, validator: databaseValidator({ db: s.t.db, cache: s.cache }), subjectPrefix: s.subjectPrefix, log: silentLog }),
      version: { deploymentName: s.config.temporal.deploymentName, buildId: 'other' },
    });
    other = { worker, run: worker.run().finally(() => connection.close()) };
    await waitForVersion(s.client, s.config.temporal.deploymentName, 'other');
    await setCurrentVersion(s.client, s.config.temporal.deploymentName, 'other', { identity: 'eager start test' });
    await waitForRouting(s.client, s.config.temporal.deploymentName, (d) => d.currentBuildId === 'other' && !d.routingUpdating, 60_000);
    await eventually(async () => !eager.allowed(), 30_000, 250);

    const before = await eagerCount('eager');
    const ext = s.ext('EAGER-2');
    await create(ext);
    expect(await eagerCount('eager')).toBe(before);
    expect(await eagerCount('fallback')).toBe(0);
    await eventually(async () => (await findProcess(s.t.db, 'DEMO_ENERGY', ext))?.status === 'PROCESSED', 60_000, 200);
    await s.client.workflow.getHandle(workflowId(ext)).result();
    // Every workflow task completed on the other build (its worker polled the task from the queue).
    const history = await s.client.workflow.getHandle(workflowId(ext)).fetchHistory();
    const builds = new Set((history.events ?? []).filter((e) => e.workflowTaskCompletedEventAttributes).map((e) => e.workflowTaskCompletedEventAttributes!.deploymentVersion?.buildId));
    expect([...builds]).toEqual(['other']);
  }, 150_000);
});
