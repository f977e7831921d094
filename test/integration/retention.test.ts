import request from 'supertest';
import { eventually, startStack, Stack } from '../support/stack';
import { uniqueAccount } from '../support/fixtures';
import { runCli } from '../unit/cli/runCli';
import { enqueueEvents } from '../../events/outbox';
import { findProcess, transition } from '../../imports/store';
import { createMetrics } from '../../lib/metrics';
import { importWorkflowId } from '../../imports/workflowId';
import { RetentionSettings, runRetention } from '../../maintenance/retention';
import { ensureMaintenanceSchedule, maintenanceScheduleId } from '../../worker/maintenanceSchedule';

/**
 * Retention on the real PostgreSQL, Temporal and JetStream: by command and by schedule. Nothing is
 * pruned that the status endpoint, a re-run or the relay needs.
 */
describe('retention', () => {
  let s: Stack;
  const X = (name: string) => s.ext(name);
  const api = () => s.request();
  const post = (body: unknown) => api().post('/v2/data-import/accounts/').send(body as object);
  const status = (ext: string) => api().get(`/v2/data-import/accounts/DEMO_ENERGY/${ext}/`);
  const waitFor = (ext: string, wanted: string[]) =>
    eventually(async () => {
      const b = (await status(ext)).body;
      return wanted.includes(b.status) ? b : undefined;
    }, 45_000);
  const pendingCount = async () => Number((await s.t.db('outbox_pending').count({ n: '*' }))[0]!.n);
  const payloadOf = async (ext: string) =>
    s.t.db('import_processes').where({ import_supplier: 'DEMO_ENERGY', external_account_number: ext }).first('payload', 'payload_pruned_at');
  /** The import's last event (post-import) is written and every event published. */
  const settled = async (ext: string) => {
    await waitFor(ext, ['PROCESSED']);
    await eventually(async () =>
      (await s.t.db('outbox').where({ event_type: 'data_import.import_process.post_import.completed' }).where({ ordering_key: importWorkflowId('DEMO_ENERGY', ext) }).first()) ?? undefined,
    );
    await eventually(async () => ((await pendingCount()) === 0 ? true : undefined));
  };
  /** One `complete` event of a made-up import, written while the test holds the relay stopped. */
  const writeUnpublished = async (name: string): Promise<string> => {
    const [id] = await s.t.db.transaction((trx) =>
      enqueueEvents(trx, s.subjectPrefix, [
        {
          type: 'data_import.import_process.complete',
          version: 'v1',
          data: { resource_type: 'account', external_identifier: X(name), identifier: `A-${name}` },
          key: `${X(name)}:complete`,
          orderingKey: X(name),
          occurredAt: new Date(),
        },
      ]),
    );
    return id!;
  };
  /** Everything written so far becomes older than any retention below. */
  const ageEverything = async () => {
    await s.t.db.raw("UPDATE outbox SET created_at = created_at - interval '30 days'");
    await s.t.db.raw("UPDATE import_processes SET modified_at = modified_at - interval '30 days'");
  };
  const env = () => ({ APP_ENV: 'test', DATABASE_URL: s.t.url, RETENTION_OUTBOX_HOURS: '72', RETENTION_PAYLOAD_DAYS: '7', RETENTION_PAUSE_MS: '0', RETENTION_BATCH_SIZE: '5' });

  beforeAll(async () => {
    s = await startStack();
  });
  afterAll(async () => {
    await s.stop();
  });

  it('by command: prunes published events and PROCESSED payloads only; status, re-run and relay keep working', async () => {
    const [done, dry, failed, staged] = [X('RET-DONE'), X('RET-DRY'), X('RET-ERR'), X('RET-STAGED')];
    expect((await post(uniqueAccount(done))).status).toBe(201);
    // Staged data (the platform's v1 create-or-update) waits for its process: never pruned.
    expect((await s.request().post('/v1/data-import/account-import-process/create-or-update/').send(uniqueAccount(staged))).status).toBe(201);
    expect((await post({ payload: uniqueAccount(dry), task_params: { is_dry_run: true } })).status).toBe(201);
    expect((await post({ payload: uniqueAccount(failed), task_params: { is_dry_run: true } })).status).toBe(201);
    await waitFor(dry, ['DRY_RUN_SUCCEEDED']);
    await waitFor(failed, ['DRY_RUN_SUCCEEDED']);
    await settled(done);
    // An import whose run failed (the workflow's own path to ERRORED is tested elsewhere).
    const f = (await findProcess(s.t.db, 'DEMO_ENERGY', failed))!;
    await transition(s.t.db, f.id, f.run, { status: 'ERRORED', error: { code: 'import_process_creation_failed', detail: 'x', domain: 'import_process' }, at: new Date() });

    // An event the relay has not published yet (its relay is stopped), as old as the rest.
    await s.relay!.stop();
    const unpublishedId = await writeUnpublished('RET-LATE');
    await ageEverything();
    const statusBefore = (await status(done)).body;
    const outboxBefore = Number((await s.t.db('outbox').count({ n: '*' }))[0]!.n);

    const preview = await runCli(['maintenance', '--dry-run', '--json'], env());
    expect(preview.code).toBe(0);
    expect(JSON.parse(preview.stdout)).toEqual({
      dryRun: true,
      outbox: { pruned: outboxBefore - 1, pending: 0, heldUnpublished: 1 },
      payload: { pruned: 1, pending: 0 },
      refreshTokens: { pruned: 0, pending: 0 },
      failedBatches: [],
    });
    expect(Number((await s.t.db('outbox').count({ n: '*' }))[0]!.n)).toBe(outboxBefore);
    expect((await payloadOf(done)).payload).not.toBeNull();

    const run = await runCli(['maintenance', '--json'], env());
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      dryRun: false,
      outbox: { pruned: outboxBefore - 1, pending: 0, heldUnpublished: 1 },
      payload: { pruned: 1, pending: 0 },
      refreshTokens: { pruned: 0, pending: 0 },
      failedBatches: [],
    });
    expect(await s.t.db('outbox').pluck('event_id')).toEqual([unpublishedId]);
    expect(await payloadOf(done)).toEqual({ payload: null, payload_pruned_at: expect.any(Date) });
    expect((await payloadOf(dry)).payload).toMatchObject({ external_account_number: dry });
    expect((await payloadOf(failed)).payload).toMatchObject({ external_account_number: failed });
    expect((await payloadOf(staged)).payload).toMatchObject({ external_account_number: staged });
    // The status record is whole, and unchanged.
    const statusAfter = await status(done);
    expect(statusAfter.status).toBe(200);
    expect(statusAfter.body).toEqual(statusBefore);
    // A second pass finds nothing more.
    expect(JSON.parse((await runCli(['maintenance', '--json'], env())).stdout)).toMatchObject({ outbox: { pruned: 0 }, payload: { pruned: 0 } });

    // The unpublished event is published once its relay runs again; the failed and dry-run imports run again.
    s.relay!.start();
    await eventually(async () => ((await pendingCount()) === 0 ? true : undefined));
    expect((await post(uniqueAccount(failed))).status).toBe(201);
    expect((await post(uniqueAccount(dry))).status).toBe(201);
    expect((await waitFor(failed, ['PROCESSED', 'ERRORED'])).status).toBe('PROCESSED');
    expect((await waitFor(dry, ['PROCESSED', 'ERRORED'])).status).toBe('PROCESSED');
    const processed = await s.request().post('/v1/data-import/account-import-process/process/').send({ import_supplier_code: 'DEMO_ENERGY', external_account_number: staged });
    expect(processed.status).toBe(201);
    expect((await waitFor(staged, ['PROCESSED', 'ERRORED'])).status).toBe('PROCESSED');
    // A PROCESSED import without its payload still answers a second create with the documented code.
    const again = await post(uniqueAccount(done));
    expect(again.status).toBe(400);
    expect(again.body.non_field_errors.code).toBe('account_import_process_already_imported');
  }, 180_000);

  it('never deletes an unpublished event: the foreign key of the pending queue refuses it', async () => {
    await s.relay!.stop();
    try {
      await writeUnpublished('RET-FK');
      const seq = (await s.t.db('outbox_pending').max({ seq: 'seq' }))[0]!.seq;
      await expect(s.t.db('outbox').where({ seq }).delete()).rejects.toMatchObject({ code: '23503' });
    } finally {
      s.relay!.start();
    }
  });

  it('by schedule: the worker creates the schedule idempotently and its maintenance workflow prunes', async () => {
    const ext = X('RET-SCHED');
    expect((await post(uniqueAccount(ext))).status).toBe(201);
    await settled(ext);
    await ageEverything();

    const settings: RetentionSettings = { outboxRetentionSeconds: 72 * 3600, payloadRetentionSeconds: 7 * 86_400, batchSize: 100, maxRowsPerRun: 10_000, pauseMs: 0 };
    const o = { taskQueue: s.taskQueue, intervalMinutes: 24 * 60, settings, log: s.deps.log };
    try {
      expect(await ensureMaintenanceSchedule(s.client, o)).toBe('created');
      expect(await ensureMaintenanceSchedule(s.client, { ...o, intervalMinutes: 12 * 60 })).toBe('updated');
      const handle = s.client.schedule.getHandle(maintenanceScheduleId(s.taskQueue));
      const described = await handle.describe();
      expect(described.action).toMatchObject({ type: 'startWorkflow', workflowType: 'maintenance', taskQueue: s.taskQueue });
      expect(described.spec.intervals).toMatchObject([{ every: 12 * 3600_000 }]);

      await handle.trigger();
      await eventually(async () => ((await payloadOf(ext)).payload === null ? true : undefined), 60_000);
      expect(await eventually(async () => (Number((await s.t.db('outbox').count({ n: '*' }))[0]!.n) === 0 ? true : undefined), 30_000)).toBe(true);
      expect((await status(ext)).body.status).toBe('PROCESSED');
    } finally {
      expect(await ensureMaintenanceSchedule(s.client, { ...o, intervalMinutes: 0 })).toBe('deleted');
    }
  }, 120_000);

  it('exposes what was pruned and what is pending as metrics', async () => {
    const ext = X('RET-METRICS');
    expect((await post(uniqueAccount(ext))).status).toBe(201);
    await settled(ext);
    await ageEverything();
    const published = Number((await s.t.db('outbox').count({ n: '*' }))[0]!.n);

    const metrics = createMetrics('test');
    // Bounded to one row of each kind: the rest is reported pending.
    await runRetention(s.t.db, { outboxRetentionSeconds: 0, payloadRetentionSeconds: 0, batchSize: 10, maxRowsPerRun: 1, pauseMs: 0 }, { metrics });
    const text = await metrics.registry.metrics();
    expect(text).toContain('data_import_retention_pruned_total{kind="outbox",component="test"} 1');
    expect(text).toContain('data_import_retention_pruned_total{kind="payload",component="test"} 1');
    expect(text).toContain(`data_import_retention_pending{kind="outbox",component="test"} ${published - 1}`);
    expect(text).toContain('data_import_retention_held_unpublished{component="test"} 0');
    expect(text).toMatch(/data_import_retention_last_run_timestamp_seconds\{component="test"\} \d+/);
  });
});
