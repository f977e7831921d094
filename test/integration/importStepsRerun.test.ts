/**
 * Every step of accountImport run a second time for the same run, as a replay after a worker died
 * before its workflow task completed would run it (local activities leave no record then). Each
 * must continue from what it finds; only another run number is stale (issue "Nothing gets stuck").
 */
import type { ImportRef } from '../../activities/imports';
import { createEmailActivities } from '../../activities/emails/customerEmails';
import { getProcessById } from '../../imports/store';
import { countImportsByStatus } from '../../ops/store';
import type { TestDatabase } from '../support/db';
import { StepActivities, StepsDatabase, stepActivities, stepsDatabase, storeRun } from '../support/importRuns';
import { silentLog } from '../support/stack';

describe('import steps run again for the same run', () => {
  let s: StepsDatabase;
  let t: TestDatabase;
  let acts: StepActivities;
  let n = 0;

  beforeAll(async () => {
    s = await stepsDatabase();
    t = s.t;
    acts = stepActivities(s, 'rerun');
  });
  afterAll(() => s.drop());

  const newRun = (opts: { dryRun?: boolean } = {}) => storeRun(t.db, `RERUN-${++n}`, opts);

  const statusOf = async (ref: ImportRef) => (await getProcessById(t.db, ref.importProcessId))!;
  const eventsOf = async (type: string, ext: string) =>
    t.db('outbox').where({ event_type: type }).whereRaw(`coalesce(envelope->'data'->>'external_identifier', envelope->'data'->>'import_process_external_identifier') = ?`, [ext]);

  it('start: a row already IN_PROGRESS for this run continues', async () => {
    const ref = await newRun();
    expect(await acts.startImport(ref)).toEqual({ outcome: 'ok' });
    expect(await acts.startImport(ref)).toEqual({ outcome: 'ok' });
    expect((await statusOf(ref)).status).toBe('IN_PROGRESS');
  });

  it('start: a PENDING run past its window is not started (window_expired), nor another run; a cancelled one is settled', async () => {
    const ref = await newRun();
    await t.db('import_processes').where({ id: ref.importProcessId }).update({ schedule_window_end: new Date(Date.now() - 1000) });
    expect(await acts.startImport(ref)).toEqual({ outcome: 'window_expired' });
    expect((await statusOf(ref)).status).toBe('PENDING');
    const other = await newRun();
    expect(await acts.startImport({ ...other, run: other.run + 1 })).toEqual({ outcome: 'stale' });
    expect((await statusOf(other)).status).toBe('PENDING');
    await t.db('import_processes').where({ id: other.importProcessId }).update({ status: 'CANCELLED' });
    expect(await acts.startImport(other)).toMatchObject({ outcome: 'settled', status: 'CANCELLED' });
    expect((await statusOf(other)).status).toBe('CANCELLED');
  });

  it('start: a row already PROCESSED for this run reports it settled with its account number', async () => {
    const ref = await newRun();
    await acts.startImport(ref);
    const { accountNumber } = await acts.createAccount(ref);
    expect(await acts.startImport(ref)).toEqual({ outcome: 'settled', status: 'PROCESSED', accountNumber, errorCode: null });
  });

  it('begin (start and re-validation in one step): run again continues; a settled run is reported; another run is stale', async () => {
    const ref = await newRun();
    expect(await acts.beginImport(ref)).toEqual({ outcome: 'ok' });
    expect(await acts.beginImport(ref)).toEqual({ outcome: 'ok' });
    expect((await statusOf(ref)).status).toBe('IN_PROGRESS');
    const { accountNumber } = await acts.createAccount(ref);
    expect(await acts.beginImport(ref)).toEqual({ outcome: 'settled', status: 'PROCESSED', accountNumber, errorCode: null });
    expect(await acts.beginImport({ ...ref, run: ref.run + 1 })).toEqual({ outcome: 'stale' });
  });

  it('post-import in one step (beginPostImport): run again after it completed ends completed with one post_import.completed event', async () => {
    const emails = createEmailActivities({ db: t.db, subjectPrefix: 'rerun', log: silentLog });
    const ref = await newRun();
    await acts.beginImport(ref);
    await acts.createAccount(ref);
    expect(await emails.beginPostImport(ref)).toEqual({ queued: 0, skipped: 0, finished: 'completed' });
    expect(await emails.beginPostImport(ref)).toEqual({ queued: 0, skipped: 0, finished: 'completed' });
    expect((await statusOf(ref)).currentStep).toBe('done');
    expect(await eventsOf('data_import.import_process.post_import.completed', ref.ext)).toHaveLength(1);
  });

  it('start: only another run number is stale', async () => {
    const ref = await newRun();
    expect(await acts.startImport({ ...ref, run: ref.run + 1 })).toEqual({ outcome: 'stale' });
    expect(await acts.startImport({ ...ref, run: ref.run - 1 })).toEqual({ outcome: 'stale' });
  });

  it('create: run again after its commit returns the same account, one account row and one complete event', async () => {
    const ref = await newRun();
    await acts.startImport(ref);
    const first = await acts.createAccount(ref);
    const second = await acts.createAccount(ref);
    expect(second).toEqual(first);
    expect(await t.db('accounts').where({ external_account_number: ref.ext })).toHaveLength(1);
    expect(await eventsOf('data_import.import_process.complete', ref.ext)).toHaveLength(1);
  });

  it('create: never overwrites an end that another attempt of the run recorded', async () => {
    const ref = await newRun();
    await acts.startImport(ref);
    await acts.recordFailure({ ...ref, code: 'import_process_failed_validation', detail: 'x', dryRun: false });
    await expect(acts.createAccount(ref)).rejects.toMatchObject({ type: 'import_process_already_settled', nonRetryable: true });
    expect((await statusOf(ref)).status).toBe('ERRORED');
    expect(await t.db('accounts').where({ external_account_number: ref.ext })).toHaveLength(0);
  });

  it('recordFailure: reports processed when an earlier attempt committed the account', async () => {
    const ref = await newRun();
    await acts.startImport(ref);
    const { accountNumber } = await acts.createAccount(ref);
    expect(await acts.recordFailure({ ...ref, code: 'import_process_failed_validation', detail: 'x', dryRun: false })).toEqual({ outcome: 'processed', accountNumber });
    expect((await statusOf(ref)).status).toBe('PROCESSED');
    expect(await eventsOf('data_import.import_process.error', ref.ext)).toHaveLength(0);
  });

  it('recordFailure: run again reports the recorded end once, with one error event', async () => {
    const ref = await newRun();
    await acts.startImport(ref);
    expect(await acts.recordFailure({ ...ref, code: 'import_process_failed_validation', detail: 'x', dryRun: false })).toEqual({ outcome: 'recorded' });
    expect(await acts.recordFailure({ ...ref, code: 'import_process_failed_validation', detail: 'x', dryRun: false })).toEqual({
      outcome: 'settled',
      status: 'ERRORED',
      accountNumber: null,
      errorCode: 'import_process_failed_validation',
    });
    expect(await eventsOf('data_import.import_process.error', ref.ext)).toHaveLength(1);
  });

  it('dry run: completing again is a no-op; completing after a recorded dry-run error reports that error', async () => {
    const ok = await newRun({ dryRun: true });
    await acts.startImport(ok);
    await acts.dryRunImport(ok);
    expect(await acts.completeDryRun(ok)).toBeUndefined();
    expect(await acts.completeDryRun(ok)).toBeUndefined();
    expect(await eventsOf('data_import.import_process.dry_run_complete', ok.ext)).toHaveLength(1);

    const failed = await newRun({ dryRun: true });
    await acts.startImport(failed);
    await acts.recordFailure({ ...failed, code: 'import_process_creation_failed', detail: 'x', dryRun: true });
    expect(await acts.completeDryRun(failed)).toMatchObject({ outcome: 'settled', status: 'DRY_RUN_ERRORED' });
    expect((await statusOf(failed)).status).toBe('DRY_RUN_ERRORED');
  });

  it('post-import: run again after it completed ends completed with one post_import.completed event', async () => {
    const ref = await newRun();
    await acts.startImport(ref);
    await acts.createAccount(ref);
    expect(await acts.postImport(ref)).toEqual({ outcome: 'completed' });
    expect(await acts.postImport(ref)).toEqual({ outcome: 'completed' });
    expect(await eventsOf('data_import.import_process.post_import.completed', ref.ext)).toHaveLength(1);
  });

  it('post-import: a recorded post-import failure stays the outcome; no completed event follows the error', async () => {
    const ref = await newRun();
    await acts.startImport(ref);
    await acts.createAccount(ref);
    await acts.recordPostImportError({ ...ref, code: 'post_import_failed', detail: 'x' });
    await acts.recordPostImportError({ ...ref, code: 'post_import_failed', detail: 'x' });
    expect(await acts.postImport(ref)).toEqual({ outcome: 'failed' });
    expect(await eventsOf('data_import.import_process.post_import.error', ref.ext)).toHaveLength(1);
    expect(await eventsOf('data_import.import_process.post_import.completed', ref.ext)).toHaveLength(0);
  });

  it('cancel: after the run ended otherwise reports that end and changes nothing', async () => {
    const ref = await newRun();
    await acts.startImport(ref);
    await acts.recordFailure({ ...ref, code: 'import_process_failed_validation', detail: 'x', dryRun: false });
    expect(await acts.cancelImport({ ...ref, reason: 'operator' })).toMatchObject({ outcome: 'settled', status: 'ERRORED' });
    expect(await eventsOf('data_import.import_process.cancelled', ref.ext)).toHaveLength(0);

    const done = await newRun();
    await acts.startImport(done);
    const { accountNumber } = await acts.createAccount(done);
    expect(await acts.cancelImport({ ...done, reason: 'operator' })).toEqual({ outcome: 'too_late', accountNumber });
    expect(await acts.cancelImport({ ...done, reason: 'operator' })).toEqual({ outcome: 'too_late', accountNumber });
  });

  it('cancel: run again after it cancelled reports cancelled with one cancelled event', async () => {
    const ref = await newRun();
    expect(await acts.cancelImport({ ...ref, reason: 'operator' })).toEqual({ outcome: 'cancelled' });
    expect(await acts.cancelImport({ ...ref, reason: 'operator' })).toEqual({ outcome: 'cancelled' });
    expect(await acts.startImport(ref)).toMatchObject({ outcome: 'settled', status: 'CANCELLED' });
    expect(await eventsOf('data_import.import_process.cancelled', ref.ext)).toHaveLength(1);
  });

  it('counts by status (the /metrics gauge) equal to the rows themselves after every step above', async () => {
    const rows = await t.db('import_processes').select('status').count<{ status: string; n: string }[]>('* as n').groupBy('status');
    const direct = Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
    const counted = await countImportsByStatus(t.db);
    expect(Object.fromEntries(Object.entries(counted).filter(([, n]) => n > 0))).toEqual(direct);
    expect(Object.values(counted).reduce((a, b) => a + b, 0)).toBeGreaterThan(10);
  });
});
