import request from 'supertest';
import { WorkflowFailedError } from '@temporalio/client';
import { eventually, startStack, Stack } from '../support/stack';
import { uniqueAccount } from '../support/fixtures';
import { readStream } from '../support/stream';
import { createSupplier } from '../../suppliers/store';
import { deleteReferenceData, upsertReferenceData } from '../../account/referenceDataStore';
import { findProcess, upsertRun } from '../../imports/store';
import { importWorkflowId } from '../../imports/workflowId';
import { startImportWorkflow } from '../../imports/startWorkflow';
import { importStatusQuery } from '../../workflows/accountImport';

const inMinutes = (m: number) => new Date(Date.now() + m * 60_000).toISOString();

describe('the account import workflow on the real servers', () => {
  let s: Stack;
  const X = (name: string) => s.ext(name);
  const api = () => s.request();
  const post = (body: unknown) => api().post('/v2/data-import/accounts/').send(body as object);
  const status = async (ext: string, supplier = 'DEMO_ENERGY') => (await api().get(`/v2/data-import/accounts/${supplier}/${ext}/`)).body;
  const waitFor = (ext: string, wanted: string[]) =>
    eventually(async () => {
      const b = await status(ext);
      return wanted.includes(b.status) ? b : undefined;
    }, 45_000);
  const accountRows = async (ext: string) =>
    Number((await s.t.db('accounts').where({ external_account_number: ext }).count<{ count: string }[]>('* as count'))[0]!.count);
  const eventsOf = async (ext: string) => {
    const all = await readStream(s.nc, s.stream);
    return all.filter((e) => JSON.stringify(e.envelope.data).includes(`"${ext}"`) || e.envelope.data && (e.envelope.data as { external_identifier?: string }).external_identifier === ext);
  };
  const eventTypesOf = async (ext: string) => (await eventsOf(ext)).map((e) => e.envelope.type);

  beforeAll(async () => {
    s = await startStack();
  });
  afterAll(async () => {
    await s.stop();
  });

  it('runs a dry-run task to DRY_RUN_SUCCEEDED without an account, then a later create imports for real', async () => {
    const account = uniqueAccount(X('WF-DRY'));
    expect((await post({ payload: account, task_params: { is_dry_run: true } })).status).toBe(201);
    const dry = await waitFor(X('WF-DRY'), ['DRY_RUN_SUCCEEDED', 'DRY_RUN_ERRORED', 'ERRORED']);
    expect(dry).toMatchObject({
      status: 'DRY_RUN_SUCCEEDED',
      kraken_identifier: null,
      latest_event: { event: 'EVENT_ACCOUNT_IMPORT_PROCESS_CREATED', data: null },
      latest_error: null,
    });
    expect(await accountRows(X('WF-DRY'))).toBe(0);
    await eventually(async () => (await eventTypesOf(X('WF-DRY'))).includes('data_import.import_process.dry_run_complete'));

    expect((await post(account)).status).toBe(201);
    const done = await waitFor(X('WF-DRY'), ['PROCESSED', 'ERRORED']);
    expect(done.status).toBe('PROCESSED');
    expect(await accountRows(X('WF-DRY'))).toBe(1);
  });

  it('rejects a second import of the same account with account_import_process_already_imported', async () => {
    const account = uniqueAccount(X('WF-TWICE'));
    expect((await post(account)).status).toBe(201);
    const done = await waitFor(X('WF-TWICE'), ['PROCESSED', 'ERRORED']);
    expect(done.status).toBe('PROCESSED');
    const again = await post(account);
    expect(again.status).toBe(400);
    expect(again.body).toEqual({
      non_field_errors: { detail: expect.any(String), code: 'account_import_process_already_imported' },
      account_id: done.kraken_identifier,
      // The platform's v2 400 keys beside the spec's (docs/platform-compatibility.md).
      code: 'account_import_process_already_imported',
      detail: expect.any(String),
      errors: [],
    });
    // Every event of a created account, in order, each once.
    const types = await eventually(async () => {
      const t = await eventTypesOf(X('WF-TWICE'));
      return t.includes('data_import.import_process.post_import.completed') ? t : undefined;
    });
    expect(types.filter((t) => t === 'data_import.import_process.complete')).toHaveLength(1);
    const all = await readStream(s.nc, s.stream);
    const mine = all.filter((e) => JSON.stringify(e.envelope.data).includes(done.kraken_identifier));
    const kinds = mine.map((e) => e.envelope.type);
    expect(kinds).toEqual(
      expect.arrayContaining([
        'account.created',
        'account_user.created',
        'agreement.created',
        'account_metadata.created',
        'campaign_account.added',
      ]),
    );
    expect(kinds.filter((k) => k === 'account_user.created')).toHaveLength(2);
    expect(kinds.filter((k) => k === 'agreement.created')).toHaveLength(2);
    const created = mine.find((e) => e.envelope.type === 'account.created')!;
    expect(created.envelope.data).toEqual({
      account_number: done.kraken_identifier,
      account_user_emails: ['aoife.nibhriain@example.org', 't.wojcik@example.net'],
      is_imported: true,
    });
  });

  it('answers import_process_in_progress while a run is PENDING, and a cancel ends it CANCELLED with no account', async () => {
    const account = uniqueAccount(X('WF-PENDING'));
    const body = { payload: account, task_params: { schedule_window_start: inMinutes(60), schedule_window_end: inMinutes(120) } };
    expect((await post(body)).status).toBe(201);
    expect((await status(X('WF-PENDING'))).status).toBe('PENDING');

    const conflict = await post(account);
    expect(conflict.status).toBe(409);
    expect(conflict.body).toEqual({ code: 'import_process_in_progress', detail: expect.any(String), domain: 'import_process' });

    const handle = s.client.workflow.getHandle(importWorkflowId('DEMO_ENERGY', X('WF-PENDING')));
    expect(await eventually(() => handle.query(importStatusQuery))).toMatchObject({ status: 'PENDING' });
    await handle.cancel();
    const cancelled = await waitFor(X('WF-PENDING'), ['CANCELLED']);
    expect(cancelled.latest_event.event).toBe('EVENT_ACCOUNT_IMPORT_PROCESS_CREATED');
    expect(await accountRows(X('WF-PENDING'))).toBe(0);
    await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    const ev = await eventually(async () => (await eventsOf(X('WF-PENDING'))).find((e) => e.envelope.type === 'data_import.import_process.cancelled'));
    expect(ev.envelope.data).toEqual({
      resource_type: 'account',
      external_identifier: X('WF-PENDING'),
      expiry_window_end: new Date(body.task_params.schedule_window_end).toISOString(),
    });

    // CANCELLED is not final: a new create starts a new run with the new payload.
    expect((await post(account)).status).toBe(201);
    expect((await waitFor(X('WF-PENDING'), ['PROCESSED', 'ERRORED'])).status).toBe('PROCESSED');
  });

  it('answers import_supplier_migration_not_ongoing for a Paused supplier, while validate still answers 200', async () => {
    await createSupplier(s.t.db, 'PAUSED_CO', { status: 'Paused' });
    const account = { ...uniqueAccount(X('WF-PAUSED')), import_supplier: 'PAUSED_CO' };
    const grantedPaused = await s.authHeader('PAUSED_CO');
    const res = await api().post('/v2/data-import/accounts/').set(grantedPaused).send(account);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'import_supplier_migration_not_ongoing', detail: expect.any(String), domain: 'import_process', errors: [] });
    const v = await api().post('/v2/data-import/accounts/validate/').set(grantedPaused).send(account);
    expect(v.status).toBe(200);
    expect(await findProcess(s.t.db, 'PAUSED_CO', X('WF-PAUSED'))).toBeNull();
  });

  it('rejects an invalid create with import_process_failed_validation and stores nothing', async () => {
    const account = { ...uniqueAccount(X('WF-BAD')), billing_postcode: 'NOT A POSTCODE' };
    const res = await post(account);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'import_process_failed_validation', detail: expect.any(String), domain: 'import_process', errors: [] });
    expect(await findProcess(s.t.db, 'DEMO_ENERGY', X('WF-BAD'))).toBeNull();
    // Granted, yet unknown: the supplier check itself answers, not the grant.
    const unknown = await api()
      .post('/v2/data-import/accounts/')
      .set(await s.authHeader('DEMO_ENERGY', 'NOPE'))
      .send({ ...uniqueAccount(X('WF-NOSUP')), import_supplier: 'NOPE' });
    expect(unknown.body.code).toBe('import_process_failed_validation');
  });

  it('ends ERRORED with latest_error when re-validation fails against changed reference data', async () => {
    const account = uniqueAccount(X('WF-REVAL'));
    const body = { payload: account, task_params: { schedule_window_start: new Date(Date.now() + 4000).toISOString() } };
    expect((await post(body)).status).toBe(201);
    await deleteReferenceData(s.t.db, 'tariff_code', 'G-1R-VAR-22-11-01-M');
    await s.cache.refresh();
    try {
      const errored = await waitFor(X('WF-REVAL'), ['ERRORED', 'PROCESSED']);
      const error = { code: 'import_process_failed_validation', detail: expect.stringContaining('tariff_code_not_found'), domain: 'import_process' };
      expect(errored).toMatchObject({ status: 'ERRORED', kraken_identifier: null, latest_error: error });
      expect(errored.latest_event).toEqual({ event: 'EVENT_ACCOUNT_IMPORT_PROCESS_ERRORED', occurred_at: expect.any(String), data: errored.latest_error });
      const ev = await eventually(async () => (await eventsOf(X('WF-REVAL'))).find((e) => e.envelope.type === 'data_import.import_process.error'));
      expect(ev.envelope.data).toEqual({ resource_type: 'account', external_identifier: X('WF-REVAL'), error_code: 'import_process_failed_validation', error_detail: errored.latest_error.detail });
    } finally {
      await upsertReferenceData(s.t.db, [{ kind: 'tariff_code', code: 'G-1R-VAR-22-11-01-M', fuel: 'GAS' }]);
      await s.cache.refresh();
    }
  });

  it('cancels the import when its schedule window ended before it could start', async () => {
    const process = await s.t.db.transaction((trx) =>
      upsertRun(trx, null, {
        importSupplier: 'DEMO_ENERGY',
        externalAccountNumber: X('WF-EXPIRED'),
        payload: uniqueAccount(X('WF-EXPIRED')),
        taskParams: {},
        isDryRun: false,
        scheduleWindowStart: new Date(Date.now() - 2 * 3600_000),
        scheduleWindowEnd: new Date(Date.now() - 3600_000),
        workflowId: importWorkflowId('DEMO_ENERGY', X('WF-EXPIRED')),
        warnings: [],
        now: new Date(),
      }),
    );
    await startImportWorkflow(s.client, s.taskQueue, process);
    expect((await waitFor(X('WF-EXPIRED'), ['CANCELLED', 'PROCESSED', 'ERRORED'])).status).toBe('CANCELLED');
    expect(await accountRows(X('WF-EXPIRED'))).toBe(0);
    const ev = await eventually(async () => (await eventsOf(X('WF-EXPIRED'))).find((e) => e.envelope.type === 'data_import.import_process.cancelled'));
    expect((ev.envelope.data as { expiry_window_end: string }).expiry_window_end).toBe(process.scheduleWindowEnd.toISOString());
  });

  it('lets an operator find imports by supplier and status through the search attributes', async () => {
    const query = `ImportSupplier = "DEMO_ENERGY" AND ExternalAccountNumber = "${X('WF-TWICE')}" AND ImportStatus = "PROCESSED"`;
    const found = await eventually(async () => {
      const ids: string[] = [];
      for await (const w of s.client.workflow.list({ query })) ids.push(w.workflowId);
      return ids.length > 0 ? ids : undefined;
    }, 20_000, 500);
    expect(found).toEqual([importWorkflowId('DEMO_ENERGY', X('WF-TWICE'))]);
  });
});
