/**
 * Large payloads are read only when the worker's payload budget has room for them
 * (lib/payloadBudget.ts): the run's size recorded with the payload, the lock that reads small
 * payloads in the same statement, and the begin and create steps waiting for room.
 */
import { ApplicationFailure } from '@temporalio/common';
import { createActivities, ImportRef } from '../../activities/imports';
import { IMPORT_FAILURE } from '../../lib/failureCodes';
import { ReferenceDataCache } from '../../account/referenceDataCache';
import { databaseValidator } from '../../suppliers/databaseValidator';
import { getProcessById, lockProcessForWrite } from '../../imports/store';
import { PayloadBudget } from '../../lib/payloadBudget';
import { createDb } from '../../db/knex';
import type { TestDatabase } from '../support/db';
import { StepsDatabase, stepActivities, stepsDatabase, storeRun } from '../support/importRuns';
import { uniqueAccount } from '../support/fixtures';
import { silentLog } from '../support/stack';

describe('payload budget', () => {
  let s: StepsDatabase;
  let t: TestDatabase;
  let cache: ReferenceDataCache;
  /** A pool of one connection. */
  let pool: ReturnType<typeof createDb>;
  let n = 0;

  beforeAll(async () => {
    s = await stepsDatabase();
    ({ t, cache } = s);
    pool = createDb(t.url, 1);
  });
  afterAll(async () => {
    await pool.destroy();
    await s.drop();
  });

  async function newRun(): Promise<ImportRef & { ext: string; bytes: number }> {
    const ext = `BUDGET-${++n}`;
    const payload = uniqueAccount(ext);
    return { ...(await storeRun(t.db, ext, { payload })), bytes: Buffer.byteLength(JSON.stringify(payload)) };
  }

  const activities = (budget: PayloadBudget) => stepActivities(s, 'budget', { payloadBudget: budget });

  it('reads a stored payload back within the JSON bounds: one past them fails its run, non-retryable, naming payload_too_large (issue 47)', async () => {
    const ref = await newRun();
    const json = { maxValues: 100, maxDepth: 64, maxKeys: 2000, minBytesPerValue: 8 };
    const acts = createActivities({ db: t.db, validator: databaseValidator({ db: t.db, cache }), subjectPrefix: 'budget', log: silentLog, json });
    const failure = await acts.validateImport(ref).then(() => null, (e: unknown) => e as ApplicationFailure);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: IMPORT_FAILURE.validation, nonRetryable: true, details: [[{ code: 'payload_too_large', attr: '' }]] });
    // The write step reads the payload with the run's lock within the same bounds: it fails the
    // same way and writes nothing (before, the driver parsed whatever was stored).
    for (const step of [acts.createAccount, acts.dryRunImport]) {
      const writeFailure = await step(ref).then(() => null, (e: unknown) => e as ApplicationFailure);
      expect(writeFailure).toMatchObject({ type: IMPORT_FAILURE.validation, nonRetryable: true, details: [[{ code: 'payload_too_large', attr: '' }]] });
    }
    expect(await t.db('accounts').where({ external_account_number: ref.ext }).count('* as n').first()).toMatchObject({ n: '0' });
    // Within the bounds, the same payload validates.
    const roomy = createActivities({ db: t.db, validator: databaseValidator({ db: t.db, cache }), subjectPrefix: 'budget', log: silentLog, json: { ...json, maxValues: 500_000 } });
    await expect(roomy.validateImport(ref)).resolves.toBeUndefined();
  });

  it('records the size of the stored payload in bytes', async () => {
    const ref = await newRun();
    expect((await getProcessById(t.db, ref.importProcessId))!.payloadBytes).toBe(ref.bytes);
  });

  it('reads the payload with the lock up to the threshold; above it, or of unknown size, not', async () => {
    const ref = await newRun();
    await t.db.transaction(async (trx) => {
      expect((await lockProcessForWrite(trx, ref.importProcessId, ref.bytes))!.payload).toMatchObject({ external_account_number: ref.ext });
      expect((await lockProcessForWrite(trx, ref.importProcessId, ref.bytes - 1))!.payload).toBeUndefined();
      expect((await lockProcessForWrite(trx, ref.importProcessId))!.payload).toMatchObject({ external_account_number: ref.ext });
    });
    await t.db('import_processes').where({ id: ref.importProcessId }).update({ payload_bytes: null });
    await t.db.transaction(async (trx) => {
      const locked = await lockProcessForWrite(trx, ref.importProcessId, 1_000_000);
      expect(locked!.payload).toBeUndefined();
      expect(locked!.process.payloadBytes).toBeNull();
    });
  });

  it('a large payload waits for room in the budget at re-validation and at the write, holding no connection, then imports', async () => {
    const ref = await newRun();
    // Every payload of this test is "large"; the budget holds exactly one; the pool has one connection.
    const budget = new PayloadBudget(ref.bytes, 100);
    const acts = createActivities({ db: pool, validator: databaseValidator({ db: pool, cache }), subjectPrefix: 'budget', log: silentLog, payloadBudget: budget });
    let release!: () => void;
    const other = budget.hold(ref.bytes, () => new Promise<void>((r) => (release = r)));

    let begun = false;
    const begin = acts.beginImport(ref).then((r) => ((begun = true), r));
    await new Promise((r) => setTimeout(r, 300));
    // Started (IN_PROGRESS, committed) but the re-validation waits: the fingerprint is absent.
    expect(begun).toBe(false);
    expect(budget.waiting).toBe(1);
    expect((await getProcessById(t.db, ref.importProcessId))!.status).toBe('IN_PROGRESS');
    release();
    await other;
    expect(await begin).toEqual({ outcome: 'ok' });

    let release2!: () => void;
    const other2 = budget.hold(ref.bytes, () => new Promise<void>((r) => (release2 = r)));
    let created = false;
    const create = acts.createAccount(ref).then((r) => ((created = true), r));
    await new Promise((r) => setTimeout(r, 300));
    expect(created).toBe(false);
    expect(budget.waiting).toBe(1);
    // The waiting write holds no connection: the one-connection pool still answers.
    expect((await pool.raw('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    release2();
    await other2;
    const { accountNumber } = await create;
    const p = (await getProcessById(t.db, ref.importProcessId))!;
    expect(p.status).toBe('PROCESSED');
    expect(p.krakenIdentifier).toBe(accountNumber);
    expect(budget.heldBytes).toBe(0);
  });

  it('a payload of unknown size (stored before its size was recorded) imports through the budget', async () => {
    const ref = await newRun();
    await t.db('import_processes').where({ id: ref.importProcessId }).update({ payload_bytes: null });
    const acts = activities(new PayloadBudget(1024 * 1024));
    expect(await acts.beginImport(ref)).toEqual({ outcome: 'ok' });
    await acts.createAccount(ref);
    expect((await getProcessById(t.db, ref.importProcessId))!.status).toBe('PROCESSED');
  });
});
