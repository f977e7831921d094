/**
 * The account write reads what it needs with the run's lock, in one statement
 * (imports/store.ts lockProcessForWrite), and the relay's wake-up comes from the outbox queue's
 * trigger (migration 0014), not from a statement of its own.
 */
import pg from 'pg';
import type { ImportRef } from '../../activities/imports';
import { getProcessById, lockProcessForWrite } from '../../imports/store';
import { insertAccount, newAccountNumber } from '../../db/stores/accountStore';
import { enqueueEvents } from '../../events/outbox';
import { postImportCompletedEvent } from '../../imports/events';
import { createEmailActivities } from '../../activities/emails/customerEmails';
import { createDb } from '../../db/knex';
import type { TestDatabase } from '../support/db';
import { StepActivities, StepsDatabase, stepActivities, stepsDatabase, storeRun } from '../support/importRuns';
import { uniqueAccount } from '../support/fixtures';
import { silentLog } from '../support/stack';

describe('the account write under one lock', () => {
  let s: StepsDatabase;
  let t: TestDatabase;
  let acts: StepActivities;
  let n = 0;

  beforeAll(async () => {
    s = await stepsDatabase();
    t = s.t;
    acts = stepActivities(s, 'lock');
  });
  afterAll(() => s.drop());

  function newRun(mutate: (a: ReturnType<typeof uniqueAccount>) => void = () => undefined): Promise<ImportRef & { ext: string }> {
    const ext = `LOCK-${++n}`;
    const payload = uniqueAccount(ext);
    mutate(payload);
    return storeRun(t.db, ext, { payload });
  }

  const locked = (ref: ImportRef) => t.db.transaction((trx) => lockProcessForWrite(trx, ref.importProcessId));

  it("reads the references another account holds, distinct, never the import's own", async () => {
    const ref = await newRun((a) => {
      a.references = [
        { namespace: 'legacy-crm', value: 'SHARED-1' },
        { namespace: 'legacy-crm', value: 'MINE-1' },
        { namespace: 'legacy-billing', value: 'SHARED-1' },
      ];
    });
    expect((await locked(ref))!.takenReferences).toEqual([]);
    await t.db('account_references').insert([
      { namespace: 'legacy-crm', value: 'SHARED-1', import_supplier: 'DEMO_ENERGY', external_account_number: 'SOMEONE-ELSE' },
      { namespace: 'legacy-crm', value: 'MINE-1', import_supplier: 'DEMO_ENERGY', external_account_number: ref.ext },
    ]);
    expect((await locked(ref))!.takenReferences).toEqual([{ namespace: 'legacy-crm', value: 'SHARED-1' }]);
    // The create fails exactly as the validation would have reported it.
    await acts.startImport(ref);
    await expect(acts.createAccount(ref)).rejects.toThrow(/reference_already_exists at references\.0\.value/);
  });

  it('a payload without references has none taken', async () => {
    const ref = await newRun((a) => {
      delete (a as { references?: unknown }).references;
    });
    expect((await locked(ref))!.takenReferences).toEqual([]);
  });

  it("reads whether the import's account exists; the create then uses that account", async () => {
    const ref = await newRun();
    expect((await locked(ref))!.accountExists).toBe(false);
    await acts.startImport(ref);
    const payload = (await t.db('import_processes').where({ id: ref.importProcessId }).first()).payload;
    const made = await insertAccount(t.db, { importSupplier: 'DEMO_ENERGY', externalAccountNumber: ref.ext, accountNumber: newAccountNumber(), account: payload });
    expect((await locked(ref))!.accountExists).toBe(true);
    expect(await acts.createAccount(ref)).toEqual({ accountNumber: made.accountNumber });
    expect((await getProcessById(t.db, ref.importProcessId))!.krakenIdentifier).toBe(made.accountNumber);
  });

  it('wakes the relay at commit through the queue trigger, once per transaction, never for a rollback', async () => {
    const listener = new pg.Client({ connectionString: t.url });
    await listener.connect();
    const heard: string[] = [];
    listener.on('notification', (m) => heard.push(m.channel));
    await listener.query('LISTEN outbox');
    try {
      const scope = (k: string) => ({ workflowId: `wf-${k}`, run: 1, externalAccountNumber: k, at: new Date() });
      await t.db.transaction(async (trx) => {
        await enqueueEvents(trx, 'lock', [postImportCompletedEvent(scope('A'), 'A-1')]);
        await enqueueEvents(trx, 'lock', [postImportCompletedEvent(scope('B'), 'B-1')]);
        await new Promise((r) => setTimeout(r, 200));
        expect(heard).toEqual([]); // not before the commit
      });
      await new Promise((r) => setTimeout(r, 300));
      expect(heard).toEqual(['outbox']);
      await t.db
        .transaction(async (trx) => {
          await enqueueEvents(trx, 'lock', [postImportCompletedEvent(scope('C'), 'C-1')]);
          throw new Error('roll back');
        })
        .catch(() => undefined);
      await new Promise((r) => setTimeout(r, 300));
      expect(heard).toEqual(['outbox']);
    } finally {
      await listener.end();
    }
  });

  it('post-import on a full pool: every transaction reads the supplier through its own connection', async () => {
    // As many post-imports at once as the pool has connections, with the supplier cache of a new
    // pool empty: a cache miss that took a second connection while holding one would wait forever.
    const pool = createDb(t.url, 3);
    try {
      const refs = await Promise.all(
        Array.from({ length: 3 }, async () => {
          const ref = await newRun();
          await acts.startImport(ref);
          await acts.createAccount(ref);
          return ref;
        }),
      );
      const emails = createEmailActivities({ db: pool, subjectPrefix: 'lock', log: silentLog });
      const all = Promise.all(refs.map((ref) => emails.beginPostImport(ref)));
      const stuck = new Promise((_, reject) => setTimeout(() => reject(new Error('post-imports stuck on the pool')), 10_000));
      expect(await Promise.race([all, stuck])).toEqual(refs.map(() => ({ queued: 0, skipped: 0, finished: 'completed' })));
    } finally {
      await pool.destroy();
    }
  });

  it('writes each status change and its events in one statement, and reads the e-mail counts with the post-import lock', async () => {
    const ref = await newRun();
    await acts.startImport(ref);
    const statements: string[] = [];
    const record = (q: { sql: string }) => statements.push(q.sql);
    t.db.on('query', record);
    const emails = createEmailActivities({ db: t.db, subjectPrefix: 'lock', log: silentLog });
    try {
      await acts.createAccount(ref);
      const create = [...statements];
      statements.length = 0;
      expect(await emails.beginPostImport(ref)).toEqual({ queued: 0, skipped: 0, finished: 'completed' });
      // The account's e-mails by state are read by the lock's statement, not by one of their own.
      const emailReads = statements.filter((sql) => /customer_email_queue/.test(sql));
      expect(emailReads).toHaveLength(1);
      expect(emailReads[0]).toMatch(/^select .* from "import_processes" .* for update$/is);
      for (const [step, sqls] of [['create', create], ['post-import', [...statements]]] as const) {
        const changes = sqls.filter((sql) => /update "import_processes"/i.test(sql));
        expect({ step, changes: changes.length }).toEqual({ step, changes: 1 });
        // The UPDATE is the WITH of the statement that writes the events.
        expect(changes[0]).toMatch(/^with "change" as \(update "import_processes" set .*insert into "outbox"/is);
        expect(sqls.filter((sql) => /insert into "outbox"/i.test(sql))).toEqual(changes);
      }
    } finally {
      t.db.off('query', record);
    }
    const p = (await getProcessById(t.db, ref.importProcessId))!;
    expect(p).toMatchObject({ status: 'PROCESSED', currentStep: 'done' });
    const events = await t.db('outbox').where({ ordering_key: p.workflowId }).pluck('event_type');
    expect(events).toEqual(expect.arrayContaining(['data_import.import_process.complete', 'account.created', 'data_import.import_process.post_import.completed']));
  });
});
