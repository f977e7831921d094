/**
 * The create of an account sent for the first time is one INSERT of its own (imports/store.ts
 * insertFirstRun); any other create is decided under the row's lock as before. Real PostgreSQL;
 * the Temporal client is a small fake whose start fails (the sweeper's case: the import is stored
 * and answered all the same).
 */
import type { Client } from '@temporalio/client';
import { databaseValidator } from '../../suppliers/databaseValidator';
import { createImport } from '../../imports/service';
import { getProcessById, insertFirstRun } from '../../imports/store';
import { importWorkflowId } from '../../imports/workflowId';
import { AlreadyImportedError, DomainError } from '../../lib/errors';
import { StepActivities, StepsDatabase, stepActivities, stepsDatabase } from '../support/importRuns';
import { uniqueAccount } from '../support/fixtures';
import { silentLog } from '../support/stack';

describe('the first create of an account', () => {
  let s: StepsDatabase;
  let acts: StepActivities;
  let n = 0;
  const temporal = { workflow: { start: async () => Promise.reject(new Error('Temporal is down')) } } as unknown as Client;

  beforeAll(async () => {
    s = await stepsDatabase();
    acts = stepActivities(s, 'first');
  });
  afterAll(() => s.drop());

  const create = (account: Record<string, unknown>) =>
    createImport({ db: s.t.db, temporal, taskQueue: 'unused', log: silentLog }, databaseValidator({ db: s.t.db, cache: s.cache }), account);
  const newRun = (ext: string) => ({
    importSupplier: 'DEMO_ENERGY',
    externalAccountNumber: ext,
    payload: uniqueAccount(ext),
    taskParams: {},
    isDryRun: false,
    scheduleWindowStart: new Date(),
    scheduleWindowEnd: new Date(Date.now() + 3600_000),
    workflowId: importWorkflowId('DEMO_ENERGY', ext),
    warnings: [],
    now: new Date(),
  });

  it('is one statement, outside any transaction', async () => {
    const ext = `FIRST-${++n}`;
    const statements: string[] = [];
    const record = (q: { sql: string }) => statements.push(q.sql);
    s.t.db.on('query', record);
    try {
      const { process } = await create(uniqueAccount(ext));
      expect(process).toMatchObject({ externalAccountNumber: ext, run: 1, status: 'PENDING', workflowRunId: null });
    } finally {
      s.t.db.off('query', record);
    }
    const writes = statements.filter((sql) => /import_processes/.test(sql) && !/^select/i.test(sql));
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatch(/^insert into "import_processes".* on conflict \("import_supplier", "external_account_number"\) do nothing returning/is);
    expect(statements.filter((sql) => /^(BEGIN|COMMIT)/i.test(sql))).toEqual([]);
  });

  it('inserts nothing over an existing process, and leaves it as it was', async () => {
    const ext = `FIRST-${++n}`;
    const first = await insertFirstRun(s.t.db, newRun(ext));
    expect(first).toMatchObject({ run: 1, status: 'PENDING' });
    const again = { ...newRun(ext), payload: { ...uniqueAccount(ext), billing_name: 'Someone else' } };
    expect(await insertFirstRun(s.t.db, again)).toBeNull();
    const row = await s.t.db('import_processes').where({ id: first!.id }).first();
    expect(row.payload.billing_name).not.toBe('Someone else');
    expect(row.run).toBe(1);
  });

  it('of the same account sent many times at once: one run stored, every other answer import_process_in_progress', async () => {
    const ext = `FIRST-${++n}`;
    const outcomes = await Promise.allSettled(Array.from({ length: 8 }, () => create(uniqueAccount(ext))));
    const stored = outcomes.filter((o) => o.status === 'fulfilled');
    expect(stored).toHaveLength(1);
    for (const o of outcomes) {
      if (o.status === 'rejected') {
        expect(o.reason).toBeInstanceOf(DomainError);
        expect((o.reason as DomainError).code).toBe('import_process_in_progress');
      }
    }
    const rows = await s.t.db('import_processes').where({ import_supplier: 'DEMO_ENERGY', external_account_number: ext });
    expect(rows).toHaveLength(1);
    expect(rows[0].run).toBe(1);
    // The ops roll-up counted the one insert, not the seven that inserted nothing.
    const counted = await s.t.db('ops_counts').where({ kind: 'import', import_supplier: 'DEMO_ENERGY', status: 'PENDING' }).sum<{ sum: string }[]>('n as sum');
    const pending = await s.t.db('import_processes').where({ import_supplier: 'DEMO_ENERGY', status: 'PENDING' }).count<{ count: string }[]>('* as count');
    expect(Number(counted[0]!.sum)).toBe(Number(pending[0]!.count));
  });

  it('of an account imported already answers already imported; of an ended run starts run 2 under the lock', async () => {
    const ext = `FIRST-${++n}`;
    const { process } = await create(uniqueAccount(ext));
    const ref = { importProcessId: process.id, run: process.run };
    await acts.startImport(ref);
    const { accountNumber } = await acts.createAccount(ref);
    await expect(create(uniqueAccount(ext))).rejects.toEqual(new AlreadyImportedError(accountNumber));

    const other = `FIRST-${++n}`;
    const ended = (await create(uniqueAccount(other))).process;
    await acts.cancelImport({ importProcessId: ended.id, run: ended.run, reason: 'operator' });
    const again = (await create(uniqueAccount(other))).process;
    expect(again).toMatchObject({ id: ended.id, run: 2, status: 'PENDING' });
    expect((await getProcessById(s.t.db, ended.id))!.run).toBe(2);
  });
});
