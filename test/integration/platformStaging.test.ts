/**
 * The platform's v1 account import operations on the real servers (docs/api.md, "Staged
 * imports"): validate-account, create-or-update (stage), process, account-transfer-status. Staged
 * data is stored and validated without a run; process starts the run exactly as a v2 create does,
 * so the two are alike once imported.
 */
import type { Client } from '@temporalio/client';
import { eventually, silentLog, startStack, Stack } from '../support/stack';
import { uniqueAccount } from '../support/fixtures';
import { documentAjv, responseValidator } from '../support/openapiDocument';
import { createSupplier, updateSupplier } from '../../suppliers/store';
import { databaseValidator, SUPPLIER_CACHE_MS } from '../../suppliers/databaseValidator';
import { processStaged, stageAccount, type StoredPayloadReader } from '../../imports/staging';
import { loadConfig } from '../../lib/config';
import { UnstartedRunSweeper } from '../../imports/sweeper';
import type { AccountValidator } from '../../account/validator';

/** process's read-back without a budget: these tests are about the run it stores. */
const direct: StoredPayloadReader = { json: loadConfig({}).http.json, admit: (_bytes, read) => read() };

jest.setTimeout(180_000);

const V1 = '/v1/data-import';

describe('the platform v1 staged import on the real servers', () => {
  let s: Stack;
  const ajv = documentAjv();

  /** Each answer with a documented JSON body is checked against the OpenAPI document, as a generated client would. */
  const conforms = (method: string, path: string, res: { status: number; body: unknown }) => {
    const valid = responseValidator(ajv, method, path, res.status);
    expect({ path, status: res.status, body: res.body, errors: valid(res.body) ? null : valid.errors }).toEqual({ path, status: res.status, body: res.body, errors: null });
  };
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await s.request().post(`${V1}${path}`).set(headers).send(body as object);
    conforms('post', `${V1}${path}`, res);
    return res;
  };
  const stage = (account: Record<string, unknown>, headers?: Record<string, string>) => post('/account-import-process/create-or-update/', account, headers);
  const processBody = (external: string, extra: Record<string, unknown> = {}) => ({ import_supplier_code: 'DEMO_ENERGY', external_account_number: external, ...extra });
  const processIt = (external: string, extra?: Record<string, unknown>, headers?: Record<string, string>) => post('/account-import-process/process/', processBody(external, extra), headers);
  const transfer = async (external: string, headers: Record<string, string> = {}, supplier = 'DEMO_ENERGY') => {
    const res = await s.request().get(`${V1}/account-transfer-status/${supplier}/${external}/`).set(headers);
    conforms('get', `${V1}/account-transfer-status/{import_supplier_code}/{external_account_number}/`, res);
    return res;
  };
  const status = async (external: string) => (await s.request().get(`/v2/data-import/accounts/DEMO_ENERGY/${external}/`)).body;
  const untilStatus = (external: string, wanted: string) => eventually(async () => ((await status(external)).status === wanted ? status(external) : undefined), 60_000);
  const row = (external: string) => s.t.db('import_processes').where({ import_supplier: 'DEMO_ENERGY', external_account_number: external }).first();

  beforeAll(async () => {
    s = await startStack({ relay: false });
    await createSupplier(s.t.db, 'OTHER_ENERGY');
  });
  afterAll(async () => {
    await s?.stop();
  });

  describe('validate-account', () => {
    it('answers a valid account with the validated data and its warnings, creating nothing', async () => {
      const external = s.ext('V-OK');
      const account = { ...uniqueAccount(external), billing_postcode: 'sw1a 1aa' };
      const res = await post('/validate-account/', account);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ import_supplier: 'DEMO_ENERGY', external_account_number: external, billing_postcode: 'SW1A 1AA', warnings: expect.any(Array) });
      expect(await row(external)).toBeUndefined();
    });

    it('answers every error of the account in the NonFieldErrors shape, with code account_failed_validation', async () => {
      const account = { ...uniqueAccount(s.ext('V-BAD')), billing_postcode: 'NOT A POSTCODE', smart_read_cycle_day: 99 };
      const res = await post('/validate-account/', account);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('account_failed_validation');
      expect(res.body.errors).toEqual(
        expect.arrayContaining([expect.objectContaining({ code: 'invalid_postcode', attr: 'billing_postcode' }), expect.objectContaining({ attr: 'smart_read_cycle_day' })]),
      );
      expect(res.body.non_field_errors).toHaveLength(res.body.errors.length);
      expect(res.body.non_field_errors).toEqual(expect.arrayContaining([expect.stringMatching(/^billing_postcode: /)]));
    });

    it('takes the bare Account only: an envelope payload is an unknown field', async () => {
      const res = await post('/validate-account/', { payload: uniqueAccount(s.ext('V-ENV')) });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ code: 'unknown_field', attr: 'payload' })]));
    });

    it("reports another organisation's supplier exactly as an unknown one", async () => {
      const foreign = await post('/validate-account/', { ...uniqueAccount(s.ext('V-FOREIGN')), import_supplier: 'OTHER_ENERGY' });
      const unknown = await post('/validate-account/', { ...uniqueAccount(s.ext('V-FOREIGN')), import_supplier: 'NO_SUCH_ENERGY' });
      expect(foreign.status).toBe(400);
      expect(foreign.body.errors).toEqual([expect.objectContaining({ code: 'import_supplier_not_found', attr: 'import_supplier' })]);
      expect(unknown.body.errors).toEqual([expect.objectContaining({ code: 'import_supplier_not_found', attr: 'import_supplier' })]);
    });
  });

  describe('create-or-update, process, transfer status', () => {
    it('stages (201), updates (200), processes into the same import as a v2 create, and reports the transfer status on the way', async () => {
      const external = s.ext('FLOW');
      const first = await stage(uniqueAccount(external));
      expect(first.status).toBe(201);
      expect(first.body).toEqual({ external_account_number: external, import_supplier_code: 'DEMO_ENERGY', warnings: expect.any(Array) });

      // Staged: stored and validated, no run, no workflow; listed as pending; transfer UNKNOWN.
      expect(await status(external)).toMatchObject({ status: 'STAGED', kraken_identifier: null, latest_event: { event: 'EVENT_ACCOUNT_IMPORT_PROCESS_CREATED', data: null }, latest_error: null });
      expect(await row(external)).toMatchObject({ run: 0, workflow_run_id: null, current_step: 'staged' });
      const pending = await s.request().get(`${V1}/pending-account-import-processes/DEMO_ENERGY/`);
      expect(pending.body).toEqual(expect.arrayContaining([{ external_account_number: external, kraken_account_number: null, account_created_at: null }]));
      expect((await transfer(external)).body).toEqual({ status: 'UNKNOWN', kraken_account_number: '', account_number: '', meter_points: [] });

      const updated = await stage({ ...uniqueAccount(external), billing_name: 'Updated Name' });
      expect(updated.status).toBe(200);
      expect((await row(external)).payload.billing_name).toBe('Updated Name');

      // An invalid update changes nothing.
      const bad = await stage({ ...uniqueAccount(external), billing_name: 'Worse', billing_postcode: 'NOPE' });
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('account_failed_validation');
      expect((await row(external)).payload.billing_name).toBe('Updated Name');

      const processed = await processIt(external);
      expect(processed.status).toBe(201);
      expect(processed.body).toEqual({ external_account_number: external, import_supplier_code: 'DEMO_ENERGY', warnings: expect.any(Array) });
      // A second process while the run is under way starts nothing.
      const again = await processIt(external);
      if (again.status === 409) expect(again.body.code).toBe('import_process_in_progress');
      else expect(again.body.code).toBe('account_import_process_already_imported');

      const done = await untilStatus(external, 'PROCESSED');
      const t = await transfer(external);
      expect(t.body).toEqual({
        status: 'COMPLETED',
        kraken_account_number: done.kraken_identifier,
        account_number: done.kraken_identifier,
        meter_points: [
          { mpxn: expect.any(String), status: 'PRE_REGISTRATION' },
          { mpxn: expect.any(String), status: 'PRE_REGISTRATION' },
        ],
      });
      const account = await s.request().get(`/v2/data-import/accounts/DEMO_ENERGY/${external}/account/`);
      expect(account.body.billing_name).toBe('Updated Name');

      // The meter points' registration states follow the registration flows.
      expect((await s.request().post(`${V1}/send-registration-flows/DEMO_ENERGY/${external}/`)).status).toBe(200);
      expect((await transfer(external)).body.meter_points.map((m: { status: string }) => m.status)).toEqual(['UNDERGOING_REGISTRATION', 'UNDERGOING_REGISTRATION']);

      // Imported: staging, processing and validating it again are refused in the platform's shape.
      for (const res of [await stage(uniqueAccount(external)), await processIt(external), await post('/validate-account/', uniqueAccount(external))]) {
        expect(res.status).toBe(400);
        expect(res.body).toEqual({
          external_account_number: external,
          kraken_account_number: done.kraken_identifier,
          non_field_errors: [expect.any(String)],
          code: 'account_import_process_already_imported',
        });
      }
    });

    it('imports a staged account exactly as a v2 create does: run 1, the same status record and the same events', async () => {
      const staged = s.ext('SAME-STAGED');
      const created = s.ext('SAME-V2');
      expect((await stage(uniqueAccount(staged))).status).toBe(201);
      expect((await processIt(staged)).status).toBe(201);
      expect((await s.request().post('/v2/data-import/accounts/').send(uniqueAccount(created))).status).toBe(201);
      const [a, b] = await Promise.all([untilStatus(staged, 'PROCESSED'), untilStatus(created, 'PROCESSED')]);
      const shape = (r: Record<string, unknown>) => ({ ...r, kraken_identifier: typeof r.kraken_identifier, created_at: typeof r.created_at, modified_at: typeof r.modified_at, latest_event: { ...(r.latest_event as object), occurred_at: 'x' } });
      expect(shape(a)).toEqual(shape(b));
      expect((await row(staged)).run).toBe(1);
      expect((await row(created)).run).toBe(1);
      const events = async (external: string) => {
        const key = (await row(external)).workflow_id as string;
        // Post-import events follow the PROCESSED status: wait for the import's last one.
        return eventually(async () => {
          const rows = (await s.t.db('outbox').where({ ordering_key: key }).select('event_type', 'event_version')) as { event_type: string; event_version: string }[];
          return rows.some((r) => r.event_type.startsWith('data_import.import_process.post_import')) ? rows.map((r) => `${r.event_type}.${r.event_version}`).sort() : undefined;
        });
      };
      expect(await events(staged)).toEqual(await events(created));
    });

    it('processes as a dry run, then for real, from the same staged data; links the operations team given', async () => {
      const external = s.ext('DRY');
      expect((await stage(uniqueAccount(external))).status).toBe(201);
      expect((await processIt(external, { dry_run: true })).status).toBe(201);
      await untilStatus(external, 'DRY_RUN_SUCCEEDED');
      expect((await transfer(external)).body.status).toBe('UNKNOWN');
      expect((await processIt(external, { operations_team_name: 'Migration Team B' })).status).toBe(201);
      const done = await untilStatus(external, 'PROCESSED');
      expect(done.kraken_identifier).toMatch(/^A-/);
      const account = await s.request().get(`/v2/data-import/accounts/DEMO_ENERGY/${external}/account/`);
      expect(account.body.operations_team_name).toBe('Migration Team B');
    });

    it('refuses staging over an import under way (409) and leaves it alone', async () => {
      const external = s.ext('BUSY');
      await s.stopWorker();
      try {
        expect((await s.request().post('/v2/data-import/accounts/').send(uniqueAccount(external))).status).toBe(201);
        const res = await stage({ ...uniqueAccount(external), billing_name: 'Not Now' });
        expect(res.status).toBe(409);
        expect(res.body.code).toBe('import_process_in_progress');
        expect((await transfer(external)).body).toEqual({ status: 'IN_PROGRESS', kraken_account_number: '', account_number: '', meter_points: [] });
        expect((await row(external)).payload.billing_name).not.toBe('Not Now');
      } finally {
        await s.startWorker();
      }
      await untilStatus(external, 'PROCESSED');
    });

    it('stages over a run that ended without an account: the run number moves on, so a replay of the ended run finds itself superseded', async () => {
      const external = s.ext('AFTER-END');
      expect((await stage(uniqueAccount(external))).status).toBe(201);
      // As if run 4 had ended CANCELLED (its workflow may still replay a step).
      await s.t.db('import_processes').where({ external_account_number: external }).update({ status: 'CANCELLED', run: 4 });
      expect((await stage(uniqueAccount(external))).status).toBe(200);
      expect(await row(external)).toMatchObject({ status: 'STAGED', run: 5 });
      // Over staged data the run number stays: no workflow was started for it.
      expect((await stage(uniqueAccount(external))).status).toBe(200);
      expect(await row(external)).toMatchObject({ status: 'STAGED', run: 5 });
      expect((await processIt(external)).status).toBe(201);
      expect((await untilStatus(external, 'PROCESSED')).kraken_identifier).toMatch(/^A-/);
      expect((await row(external)).run).toBe(6);
    });

    it('answers the supplier that is not Ongoing import_supplier_migration_not_ongoing, staging and processing', async () => {
      await createSupplier(s.t.db, 'PAUSED_ENERGY');
      const headers = await s.authHeader('PAUSED_ENERGY');
      const external = s.ext('PAUSED');
      expect((await stage({ ...uniqueAccount(external), import_supplier: 'PAUSED_ENERGY' }, headers)).status).toBe(201);
      await updateSupplier(s.t.db, 'PAUSED_ENERGY', { status: 'Paused' });
      // The API reuses a supplier it read for SUPPLIER_CACHE_MS.
      await new Promise((r) => setTimeout(r, SUPPLIER_CACHE_MS + 100));
      const res = await post('/account-import-process/process/', { import_supplier_code: 'PAUSED_ENERGY', external_account_number: external }, headers);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('import_supplier_migration_not_ongoing');
      const staged = await stage({ ...uniqueAccount(external), import_supplier: 'PAUSED_ENERGY' }, headers);
      expect(staged.status).toBe(400);
      expect(staged.body.code).toBe('import_supplier_migration_not_ongoing');
    });
  });

  describe('process: bad requests and other organisations', () => {
    it('answers an account never staged import_process_does_not_exist, and a supplier of another organisation the same', async () => {
      const unknown = await processIt(s.ext('NEVER'));
      expect(unknown.status).toBe(400);
      expect(unknown.body).toEqual({ non_field_errors: [expect.any(String)], code: 'import_process_does_not_exist' });
      const external = s.ext('THEIRS');
      const theirs = await s.authHeader('OTHER_ENERGY');
      expect((await stage({ ...uniqueAccount(external), import_supplier: 'OTHER_ENERGY' }, theirs)).status).toBe(201);
      const foreign = await post('/account-import-process/process/', { import_supplier_code: 'OTHER_ENERGY', external_account_number: external });
      expect(foreign.status).toBe(400);
      expect(foreign.body).toEqual(unknown.body);
      // Nor can the other organisation's staged data be updated, or read.
      const overwrite = await stage({ ...uniqueAccount(external), import_supplier: 'OTHER_ENERGY' });
      expect(overwrite.body.errors).toEqual([expect.objectContaining({ code: 'import_supplier_not_found', attr: 'import_supplier' })]);
      const read = await transfer(external, {}, 'OTHER_ENERGY');
      const none = await transfer(external, {}, 'NO_SUCH_ENERGY');
      expect(read.status).toBe(404);
      expect(read.body).toEqual(none.body);
      expect(read.body).toEqual({ detail: expect.any(String), code: 'not_found' });
      // Its own organisation sees it.
      expect((await transfer(external, theirs, 'OTHER_ENERGY')).body.status).toBe('UNKNOWN');
    });

    it('answers a body of the wrong shape validation_error with every issue', async () => {
      const res = await post('/account-import-process/process/', { import_supplier_code: 7, external_account_number: '', dry_run: 'yes', team: 'x' });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_error');
      expect(res.body.errors.map((e: { code: string; attr: string }) => `${e.code}:${e.attr}`).sort()).toEqual(
        ['blank:external_account_number', 'invalid:dry_run', 'invalid:import_supplier_code', 'unknown_field:team'].sort(),
      );
    });

    it('answers the transfer status of an unknown account 404, and an unknown query parameter 400', async () => {
      const res = await transfer(s.ext('NOBODY'));
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not_found');
      const q = await s.request().get(`${V1}/account-transfer-status/DEMO_ENERGY/${s.ext('NOBODY')}/?verbose=1`);
      expect(q.status).toBe(400);
      expect(q.body.errors).toEqual([expect.objectContaining({ code: 'unknown_field', attr: 'verbose' })]);
    });
  });

  describe('process is exactly once per account', () => {
    const validator = () => databaseValidator({ db: s.t.db, cache: s.cache });
    const deps = (temporal: Client = s.client) => ({ db: s.t.db, temporal, taskQueue: s.taskQueue, log: silentLog });
    const req = (external: string) => ({ importSupplier: 'DEMO_ENERGY', externalAccountNumber: external, dryRun: false });

    it('of the same staged account sent many times at once: one run started, every other answer import_process_in_progress', async () => {
      const external = s.ext('RACE');
      expect((await stage(uniqueAccount(external))).status).toBe(201);
      const answers = await Promise.all(Array.from({ length: 8 }, () => s.request().post(`${V1}/account-import-process/process/`).send(processBody(external))));
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses.filter((x) => x === 201)).toHaveLength(1);
      for (const a of answers.filter((x) => x.status !== 201)) expect([409, 400]).toContain(a.status);
      await untilStatus(external, 'PROCESSED');
      expect((await row(external)).run).toBe(1);
      const { executions } = await s.client.workflowService.listWorkflowExecutions({ namespace: s.config.temporal.namespace, query: `WorkflowId = '${(await row(external)).workflow_id}'` });
      expect(executions).toHaveLength(1);
    });

    it('stored before the workflow start failed: the sweeper starts it, and the import ends PROCESSED', async () => {
      const external = s.ext('SWEPT');
      await stageAccount(s.t.db, validator(), uniqueAccount(external));
      const down = { workflow: { start: async () => Promise.reject(new Error('Temporal is down')) } } as unknown as Client;
      const { process } = await processStaged(deps(down), validator(), req(external), direct);
      expect(process).toMatchObject({ status: 'PENDING', run: 1, workflowRunId: null });
      const sweeper = new UnstartedRunSweeper({ db: s.t.db, temporal: s.client, taskQueue: s.taskQueue, log: silentLog, graceSeconds: 0 });
      expect(await sweeper.sweep()).toBeGreaterThanOrEqual(1);
      expect((await untilStatus(external, 'PROCESSED')).kraken_identifier).toMatch(/^A-/);
      // The sweeper and a late retry of the start find the same workflow: one execution.
      expect(await sweeper.sweep()).toBe(0);
    });

    it('runs the newest staged data when an update lands while the process validates', async () => {
      const external = s.ext('RACED-UPDATE');
      await stageAccount(s.t.db, validator(), uniqueAccount(external));
      const real = validator();
      let validations = 0;
      const racing: AccountValidator = {
        ...real,
        async validate(body, opts) {
          const out = await real.validate(body, opts);
          // The first validation of the process sees the old data; an update commits before its lock.
          if (validations++ === 0) await stageAccount(s.t.db, real, { ...uniqueAccount(external), billing_name: 'Landed Meanwhile' });
          return out;
        },
      };
      const { process } = await processStaged(deps(), racing, req(external), direct);
      expect(process.run).toBe(1);
      // The first attempt found the row changed under its lock: the newer data was validated again.
      expect(validations).toBe(2);
      expect((await row(external)).payload.billing_name).toBe('Landed Meanwhile');
      await untilStatus(external, 'PROCESSED');
    });
  });
});
