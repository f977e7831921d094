/**
 * The sweeper (imports/sweeper.ts, run by every worker process): an import stored by a create
 * whose workflow start was lost — the API died between its commit and the start, or Temporal did
 * not answer — is started by the sweeper once its grace has passed, exactly once, and ends
 * PROCESSED. The create goes through the real API (its Temporal client's start fails, as a lost
 * start does); the sweeper starts it on the real Temporal server, where the stack's worker runs it.
 */
import type { Client } from '@temporalio/client';
import request from 'supertest';
import { createApp } from '../../api/app';
import { UnstartedRunSweeper } from '../../imports/sweeper';
import { uniqueAccount } from '../support/fixtures';
import { eventually, silentLog, startStack, Stack } from '../support/stack';

jest.setTimeout(180_000);

describe('the sweeper of imports whose workflow never started', () => {
  let s: Stack;
  let lostStarts = 0;
  /** The API's Temporal client, as one whose start never reaches the server. */
  const down = { workflow: { start: async () => Promise.reject(new Error(`start #${++lostStarts} lost: Temporal did not answer`)) } } as unknown as Client;

  beforeAll(async () => {
    s = await startStack({ relay: false });
  });
  afterAll(async () => {
    await s?.stop();
  });

  const row = (external: string) => s.t.db('import_processes').where({ import_supplier: 'DEMO_ENERGY', external_account_number: external }).first();
  const executions = async (workflowId: string) =>
    (await s.client.workflowService.listWorkflowExecutions({ namespace: s.config.temporal.namespace, query: `WorkflowId = '${workflowId}'` })).executions;
  const sweeper = (graceSeconds: number, intervalMs?: number) => new UnstartedRunSweeper({ db: s.t.db, temporal: s.client, taskQueue: s.taskQueue, log: silentLog, graceSeconds, intervalMs });

  /** A create through the API whose workflow start is lost: answered 201, stored without a run id. */
  async function lostCreate(name: string): Promise<string> {
    const external = s.ext(name);
    const app = createApp({ ...s.deps, temporal: down });
    const before = lostStarts;
    const res = await request(app.callback()).post('/v2/data-import/accounts/').set(await s.authHeader('DEMO_ENERGY')).send(uniqueAccount(external));
    expect(res.status).toBe(201);
    expect(lostStarts).toBe(before + 1);
    expect(await row(external)).toMatchObject({ status: 'PENDING', run: 1, workflow_run_id: null });
    return external;
  }

  it('leaves a stored import alone within its grace (the API may still be starting it)', async () => {
    const external = await lostCreate('GRACE');
    expect(await sweeper(3600).sweep()).toBe(0);
    expect(await row(external)).toMatchObject({ status: 'PENDING', workflow_run_id: null });
    expect(await executions((await row(external)).workflow_id)).toHaveLength(0);
    // Not left for ever: past the grace, the next pass starts it (and the earlier test's one too).
    expect(await sweeper(0).sweep()).toBeGreaterThanOrEqual(1);
    await eventually(async () => (await row(external)).status === 'PROCESSED', 90_000);
  });

  it('starts a create whose workflow start was lost, once: the import ends PROCESSED with one execution', async () => {
    const external = await lostCreate('LOST');
    const sw = sweeper(0);
    expect(await sw.sweep()).toBe(1);
    const started = await row(external);
    expect(started.workflow_run_id).toEqual(expect.any(String));
    const done = await eventually(async () => {
      const r = await row(external);
      return r.status === 'PROCESSED' ? r : undefined;
    }, 90_000);
    expect(done.kraken_identifier).toMatch(/^A-/);
    expect(done.run).toBe(1);
    // Once: the next passes find nothing, and the server holds one execution of the import.
    expect(await sw.sweep()).toBe(0);
    expect(await sweeper(0).sweep()).toBe(0);
    const runs = await executions(started.workflow_id);
    expect(runs).toHaveLength(1);
    expect(runs[0]!.execution?.runId).toBe(started.workflow_run_id);
  });

  it('started by two sweepers at once (two worker processes), still one execution', async () => {
    const external = await lostCreate('RACE');
    const counts = await Promise.all([sweeper(0).sweep(), sweeper(0).sweep()]);
    expect(counts.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(1);
    await eventually(async () => (await row(external)).status === 'PROCESSED', 90_000);
    expect(await executions((await row(external)).workflow_id)).toHaveLength(1);
  });

  it('runs by itself on its interval, as the worker process starts it', async () => {
    const external = await lostCreate('PERIODIC');
    const sw = sweeper(0, 200);
    sw.start();
    try {
      await eventually(async () => (await row(external)).status === 'PROCESSED', 90_000);
    } finally {
      await sw.stop();
    }
    expect(await executions((await row(external)).workflow_id)).toHaveLength(1);
  });
});
