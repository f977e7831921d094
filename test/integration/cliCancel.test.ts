import request from 'supertest';
import { eventually, startStack, Stack } from '../support/stack';
import { uniqueAccount } from '../support/fixtures';
import { findProcess } from '../../imports/store';
import { runCli } from '../unit/cli/runCli';

describe('data-import imports cancel on the real servers', () => {
  let s: Stack;
  let env: Record<string, string>;
  beforeAll(async () => {
    s = await startStack({ relay: false });
    env = {
      APP_ENV: 'test',
      DATABASE_URL: s.t.url,
      TEMPORAL_ADDRESS: s.config.temporal.address,
      TEMPORAL_NAMESPACE: s.config.temporal.namespace,
      TEMPORAL_TASK_QUEUE: s.taskQueue,
    };
  });
  afterAll(async () => {
    await s.stop();
  });

  /** Creates an import whose schedule window opens in five minutes: it waits, PENDING. */
  async function scheduleLater(external: string): Promise<void> {
    const start = new Date(Date.now() + 5 * 60_000);
    const res = await s.request()
      .post('/v2/data-import/accounts/')
      .send({
        payload: uniqueAccount(external),
        task_params: { schedule_window_start: start.toISOString(), schedule_window_end: new Date(start.getTime() + 3_600_000).toISOString() },
      });
    expect(res.status).toBe(201);
    // The workflow has started once its run id is recorded.
    await eventually(async () => (await findProcess(s.t.db, 'DEMO_ENERGY', external))?.workflowRunId);
  }

  it('cancels a scheduled import through Temporal and prints CANCELLED', async () => {
    await scheduleLater('CLI-CANCEL-1');
    const r = await runCli(['imports', 'cancel', 'DEMO_ENERGY', 'CLI-CANCEL-1', '--wait', '30'], env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('CANCELLED');

    const status = await s.request().get('/v2/data-import/accounts/DEMO_ENERGY/CLI-CANCEL-1/');
    expect(status.body.status).toBe('CANCELLED');
    const d = await s.client.workflow.getHandle('account-import:DEMO_ENERGY:CLI-CANCEL-1').describe();
    expect(d.status.name).toBe('CANCELLED');
  });

  it('prints the final record as JSON, and a second cancel exits 1 with nothing to cancel', async () => {
    await scheduleLater('CLI-CANCEL-2');
    const r = await runCli(['imports', 'cancel', 'DEMO_ENERGY', 'CLI-CANCEL-2', '--json'], env);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ import_supplier: 'DEMO_ENERGY', external_account_number: 'CLI-CANCEL-2', status: 'CANCELLED', kraken_identifier: null });

    const again = await runCli(['imports', 'cancel', 'DEMO_ENERGY', 'CLI-CANCEL-2'], env);
    expect(again.code).toBe(1);
    expect(again.stdout).toBe('');
    expect(again.stderr).toContain('CANCELLED');
  });
});
