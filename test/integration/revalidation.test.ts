/**
 * The worker's re-validation and the API's validation fingerprint (account/fingerprint.ts, issue
 * "Half the CPU per imported account"): the stored payload is validated again only when the rules,
 * the reference data, the supplier's configuration or London's date may have changed since the
 * API validated it — never skipped when any of them did — and the one check that reads other
 * accounts (reference ownership) runs again under the import row's lock whatever the fingerprint.
 */
import { ApplicationFailure } from '@temporalio/common';
import { createActivities, ImportRef } from '../../activities/imports';
import { ReferenceDataCache } from '../../account/referenceDataCache';
import { databaseValidator, SUPPLIER_CACHE_MS } from '../../suppliers/databaseValidator';
import { upsertReferenceData } from '../../account/referenceDataStore';
import { getProcessById } from '../../imports/store';
import { storeRun } from '../support/importRuns';
import { createSupplier, updateSupplier } from '../../suppliers/store';
import { createMetrics } from '../../lib/metrics';
import { IMPORT_FAILURE } from '../../lib/failureCodes';
import { createTestDatabase, TestDatabase } from '../support/db';
import { uniqueAccount } from '../support/fixtures';
import { silentLog } from '../support/stack';

describe('re-validation in the worker', () => {
  let t: TestDatabase;
  let cache: ReferenceDataCache;
  let metrics: ReturnType<typeof createMetrics>;
  let acts: ReturnType<typeof createActivities>;
  let validator: ReturnType<typeof databaseValidator>;
  let n = 0;
  let clock = new Date();

  beforeAll(async () => {
    t = await createTestDatabase();
    await createSupplier(t.db, 'DEMO_ENERGY', { status: 'Ongoing', marketParticipantId: 'DEMO' });
    cache = new ReferenceDataCache(t.db);
    await cache.start();
    metrics = createMetrics('worker');
    validator = databaseValidator({ db: t.db, cache });
    acts = createActivities({ db: t.db, validator, subjectPrefix: 'reval', log: silentLog, metrics });
  });
  afterAll(async () => {
    await cache.stop();
    await t.drop();
  });

  const counts = async () => {
    const m = await metrics.importValidations.get();
    const by = (o: string) => m.values.find((v) => v.labels.outcome === o)?.value ?? 0;
    return { validated: by('validated'), skipped: by('skipped') };
  };

  /** A run stored as the API stores one: the payload with the fingerprint of its validation. */
  async function apiRun(tamper?: (a: Record<string, unknown>) => void): Promise<ImportRef & { ext: string; fingerprint: string | null }> {
    const ext = `REVAL-${++n}`;
    const account = uniqueAccount(ext) as Record<string, unknown>;
    const outcome = await validator.validate(account, { mode: 'create' });
    if (!outcome.ok) throw new Error(JSON.stringify(outcome.errors));
    tamper?.(account);
    return { ...(await storeRun(t.db, ext, { payload: account, validationFingerprint: outcome.fingerprint })), fingerprint: outcome.fingerprint };
  }

  async function failureOf(p: Promise<unknown>): Promise<ApplicationFailure> {
    const err = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApplicationFailure);
    return err as ApplicationFailure;
  }

  it('records the fingerprint with the run, and skips the validation while nothing changed', async () => {
    const ref = await apiRun();
    expect(ref.fingerprint).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await getProcessById(t.db, ref.importProcessId))!.validationFingerprint).toBe(ref.fingerprint);
    const before = await counts();
    expect(await acts.beginImport(ref)).toEqual({ outcome: 'ok' });
    expect(await counts()).toEqual({ validated: before.validated, skipped: before.skipped + 1 });
    expect((await getProcessById(t.db, ref.importProcessId))!.status).toBe('IN_PROGRESS');
    await acts.createAccount(ref);
    expect((await getProcessById(t.db, ref.importProcessId))!.status).toBe('PROCESSED');
  });

  it('validates a run stored without a fingerprint (an older API, or a validation that could give none) every time', async () => {
    const ext = `REVAL-${++n}`;
    const bad = uniqueAccount(ext) as Record<string, unknown>;
    bad.import_supplier = 'DEMO_ENERGY';
    (bad as { customers: { given_name: unknown }[] }).customers[0]!.given_name = 42;
    const ref = await storeRun(t.db, ext, { payload: bad });
    const before = await counts();
    const f = await failureOf(acts.beginImport(ref));
    expect(f.type).toBe(IMPORT_FAILURE.validation);
    expect(f.nonRetryable).toBe(true);
    expect((await counts()).validated).toBe(before.validated + 1);
  });

  it('validates again when the reference data changed since the API validated', async () => {
    const ref = await apiRun();
    await upsertReferenceData(t.db, [{ kind: 'campaign', code: `CAMPAIGN-${n}`, description: 'new' }]);
    await new Promise((r) => setTimeout(r, 5)); // modified_at moves
    await cache.refresh();
    const before = await counts();
    expect(await acts.beginImport(ref)).toEqual({ outcome: 'ok' });
    expect(await counts()).toEqual({ validated: before.validated + 1, skipped: before.skipped });
  });

  it('validates again, and fails, when the supplier was paused since the API validated', async () => {
    const ref = await apiRun();
    await updateSupplier(t.db, 'DEMO_ENERGY', { status: 'Paused' });
    try {
      await new Promise((r) => setTimeout(r, SUPPLIER_CACHE_MS + 100)); // the supplier cache's life
      const f = await failureOf(acts.beginImport(ref));
      expect(f.type).toBe(IMPORT_FAILURE.validation);
      expect(f.message).toMatch(/import_supplier_migration_not_ongoing/);
    } finally {
      await updateSupplier(t.db, 'DEMO_ENERGY', { status: 'Ongoing' });
      await new Promise((r) => setTimeout(r, SUPPLIER_CACHE_MS + 100));
    }
  });

  it('validates again on another London day and under other rules', async () => {
    const supplier = 'DEMO_ENERGY';
    const today = await validator.fingerprint(supplier, { mode: 'create' });
    const other = databaseValidator({ db: t.db, cache });
    expect(await other.fingerprint(supplier, { mode: 'create' })).toBe(today);
    // Another day: the validator's clock is the only difference.
    const { createAccountValidator } = await import('../../account/validator');
    const tomorrow = createAccountValidator({
      referenceData: () => cache.current(),
      suppliers: async () => ({ code: supplier, status: 'Ongoing', documentRoot: '', checkDocumentExistence: false, sendCustomerEmails: false }),
      documentStore: { exists: async () => true },
      now: () => new Date(clock.getTime() + 86400_000),
    });
    const sameDay = createAccountValidator({
      referenceData: () => cache.current(),
      suppliers: async () => ({ code: supplier, status: 'Ongoing', documentRoot: '', checkDocumentExistence: false, sendCustomerEmails: false }),
      documentStore: { exists: async () => true },
      now: () => clock,
    });
    expect(await tomorrow.fingerprint(supplier, { mode: 'create' })).not.toBe(await sameDay.fingerprint(supplier, { mode: 'create' }));
    // Document existence is never vouched for: no fingerprint at all.
    const withDocuments = createAccountValidator({
      referenceData: () => cache.current(),
      suppliers: async () => ({ code: supplier, status: 'Ongoing', documentRoot: '/srv', checkDocumentExistence: true, sendCustomerEmails: false }),
      documentStore: { exists: async () => true },
    });
    expect(await withDocuments.fingerprint(supplier, { mode: 'create' })).toBeNull();
    clock = new Date();
  });

  it('fails the create with reference_already_exists when another account took a reference after the validation', async () => {
    const ref = await apiRun();
    const refs = ((await t.db('import_processes').where({ id: ref.importProcessId }).first()).payload as { references: { namespace: string; value: string }[] }).references;
    // Another account takes the first reference between the API's validation and the create.
    await t.db('account_references').insert({ namespace: refs[0]!.namespace, value: refs[0]!.value, import_supplier: 'DEMO_ENERGY', external_account_number: 'SOMEONE-ELSE' });
    expect(await acts.beginImport(ref)).toEqual({ outcome: 'ok' });
    const f = await failureOf(acts.createAccount(ref));
    expect(f.type).toBe(IMPORT_FAILURE.validation);
    expect(f.message).toMatch(/reference_already_exists at references\.0\.value/);
    expect(await t.db('accounts').where({ external_account_number: ref.ext })).toHaveLength(0);
  });
});
