import { eventually, startStack, Stack } from '../support/stack';
import { uniqueAccount } from '../support/fixtures';
import { findProcess } from '../../imports/store';
import { runCli } from '../unit/cli/runCli';

/**
 * `data-import imports resume-restored` on the real servers (issue 38, the restore drill): an
 * import the database holds open whose workflow the Temporal does not run — as after a restore
 * onto another Temporal — is started again for its run and finishes; one whose run Temporal runs
 * is left alone.
 */
describe('data-import imports resume-restored', () => {
  let s: Stack;
  let env: Record<string, string>;
  beforeAll(async () => {
    // No worker at first: the imports stay PENDING until the test starts one.
    s = await startStack({ relay: false, worker: false });
    env = { APP_ENV: 'test', DATABASE_URL: s.t.url, TEMPORAL_ADDRESS: s.config.temporal.address, TEMPORAL_NAMESPACE: s.config.temporal.namespace, TEMPORAL_TASK_QUEUE: s.taskQueue };
  }, 60_000);
  afterAll(async () => {
    await s.stop();
  });

  it('starts again the open import whose workflow Temporal lost, leaves the running one, and the restarted import ends PROCESSED', async () => {
    const lost = s.ext('RESUME-LOST');
    const live = s.ext('RESUME-LIVE');
    for (const ext of [lost, live]) {
      expect((await s.request().post('/v2/data-import/accounts/').send(uniqueAccount(ext))).status).toBe(201);
      await eventually(async () => (await findProcess(s.t.db, 'DEMO_ENERGY', ext))?.workflowRunId);
    }
    // The lost deployment's Temporal: the workflow is gone (terminated), the database still says PENDING.
    const before = (await findProcess(s.t.db, 'DEMO_ENERGY', lost))!;
    await s.client.workflow.getHandle(before.workflowId).terminate('the Temporal of a lost deployment');

    const dry = await runCli(['imports', 'resume-restored', '--supplier', 'DEMO_ENERGY', '--dry-run', '--json'], env);
    expect(dry.code).toBe(0);
    const planned = JSON.parse(dry.stdout) as { started: { external_account_number: string }[]; running: { external_account_number: string }[]; dry_run: boolean };
    expect(planned.dry_run).toBe(true);
    expect(planned.started.map((x) => x.external_account_number)).toEqual([lost]);
    expect(planned.running.map((x) => x.external_account_number)).toEqual([live]);
    expect((await findProcess(s.t.db, 'DEMO_ENERGY', lost))!.workflowRunId).toBe(before.workflowRunId);

    const r = await runCli(['imports', 'resume-restored', '--supplier', 'DEMO_ENERGY'], env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`${lost}\\s+PENDING.*started`));
    expect(r.stdout).toMatch(new RegExp(`${live}\\s+PENDING.*running`));
    expect(r.stdout).toContain('started 1, already running here 1');
    const after = (await findProcess(s.t.db, 'DEMO_ENERGY', lost))!;
    expect(after.run).toBe(before.run);
    expect(after.workflowRunId).not.toBe(before.workflowRunId);
    expect((await s.client.workflow.getHandle(after.workflowId).describe()).status.name).toBe('RUNNING');

    // Repeated: nothing left to start.
    const again = await runCli(['imports', 'resume-restored', '--supplier', 'DEMO_ENERGY', '--json'], env);
    expect((JSON.parse(again.stdout) as { started: unknown[] }).started).toEqual([]);

    await s.startWorker();
    for (const ext of [lost, live]) {
      await eventually(async () => ((await findProcess(s.t.db, 'DEMO_ENERGY', ext))?.status === 'PROCESSED' ? true : undefined), 60_000, 200);
    }
    expect(await s.t.db('accounts').where({ import_supplier: 'DEMO_ENERGY' }).whereIn('external_account_number', [lost, live]).count<{ n: string }[]>('* as n')).toEqual([{ n: '2' }]);
  }, 120_000);
});
