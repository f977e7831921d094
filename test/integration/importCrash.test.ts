import request from 'supertest';
import { eventually, startStack, Stack } from '../support/stack';
import { uniqueAccount } from '../support/fixtures';
import { readStream } from '../support/stream';
import { holdCrashWorker, HeldCrashWorker } from '../support/crashWorkerProcess';

describe('a worker killed in the middle of the create activity', () => {
  let s: Stack;
  // One crash worker per case, each loading its modules from the start (test/support/crashWorkerProcess.ts).
  const crashing = new Map<string, HeldCrashWorker>();
  beforeAll(async () => {
    s = await startStack({ worker: false });
    for (const crashAt of ['after-commit', 'during']) {
      crashing.set(crashAt, holdCrashWorker({ DATABASE_URL: s.t.url, TEMPORAL_ADDRESS: s.config.temporal.address, TASK_QUEUE: s.taskQueue, BUILD_ID: s.buildId, SUBJECT_PREFIX: s.subjectPrefix, CRASH_AT: crashAt }));
    }
  });
  afterAll(async () => {
    for (const c of crashing.values()) c.kill();
    await s.stop();
  });
  afterEach(async () => {
    await s.stopWorker();
  });

  it.each(['after-commit', 'during'] as const)('(killed %s) still ends PROCESSED with exactly one account and one complete event id', async (crashAt) => {
    const ext = s.ext(`CRASH-${crashAt}`);
    const worker = crashing.get(crashAt)!;
    await worker.start();
    expect((await s.request().post('/v2/data-import/accounts/').send(uniqueAccount(ext))).status).toBe(201);
    expect(await worker.exited).toBe('SIGKILL');

    // A healthy worker takes over once the workflow task of the dead one times out (10 s).
    await s.startWorker();
    const record = await eventually(async () => {
      const r = await s.request().get(`/v2/data-import/accounts/DEMO_ENERGY/${ext}/`);
      return r.body.status === 'PROCESSED' ? r.body : undefined;
    }, 60_000, 250);

    const accounts = await s.t.db('accounts').where({ external_account_number: ext });
    expect(accounts).toHaveLength(1);
    expect(accounts[0].number).toBe(record.kraken_identifier);

    const outboxComplete = await s.t.db('outbox').where({ event_type: 'data_import.import_process.complete' }).whereRaw(`envelope->'data'->>'external_identifier' = ?`, [ext]);
    expect(outboxComplete).toHaveLength(1);
    const onStream = await eventually(async () => {
      const all = await readStream(s.nc, s.stream, `${s.subjectPrefix}.data_import.import_process.complete.v1`);
      const mine = all.filter((e) => (e.envelope.data as { external_identifier: string }).external_identifier === ext);
      return mine.length > 0 ? mine : undefined;
    });
    expect(onStream).toHaveLength(1);
    expect(onStream[0]!.envelope.id).toBe(outboxComplete[0].event_id);

    // The replayed run finds its own account committed and goes on: post-import runs once, the
    // workflow ends PROCESSED (not STALE) and its ImportStatus says so too.
    const handle = s.client.workflow.getHandle(`account-import:DEMO_ENERGY:${ext}`);
    expect(await handle.result()).toEqual({ status: 'PROCESSED', accountNumber: record.kraken_identifier });
    const described = await handle.describe();
    expect(described.searchAttributes.ImportStatus).toEqual(['PROCESSED']);
    const postImport = await s.t.db('outbox').where({ event_type: 'data_import.import_process.post_import.completed' }).whereRaw(`envelope->'data'->>'import_process_external_identifier' = ?`, [ext]);
    expect(postImport).toHaveLength(1);
    expect((await s.t.db('import_processes').where({ external_account_number: ext }).first()).current_step).toBe('done');
  }, 120_000);
});
