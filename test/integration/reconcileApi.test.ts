import { eventually, startStack, Stack } from '../support/stack';
import { uniqueAccount } from '../support/fixtures';
import { accountDigest, canonicalAccount } from '../../account/canonical';
import { accountTotals } from '../../cli/reconcile/totals';

jest.setTimeout(120_000);

/** The account as stored and the bulk digests (imports/http/importedAccount.ts, digests.ts) on the real stack. */
describe('the account as stored and the bulk digest operation', () => {
  let s: Stack;
  let ext: string;
  let dryExt: string;
  let sent: Record<string, unknown>;

  beforeAll(async () => {
    s = await startStack();
    ext = s.ext('REC-API-1');
    dryExt = s.ext('REC-API-DRY');
    sent = uniqueAccount(ext);
    // Not in E.164 and not canonical: the service normalises both on the way in.
    (sent.customers as Record<string, unknown>[])[0]!.mobile = '07911 123456';
    sent.billing_postcode = 'ls1 4dy';
    expect((await s.request().post('/v2/data-import/accounts/').send(sent)).status).toBe(201);
    expect((await s.request().post('/v2/data-import/accounts/').send({ payload: uniqueAccount(dryExt), task_params: { is_dry_run: true } })).status).toBe(201);
    await eventually(async () => {
      const r = await s.request().post('/v2/data-import/accounts/statuses/').send({ import_supplier: 'DEMO_ENERGY', external_account_numbers: [ext, dryExt] });
      return r.body.results?.every((x: { status: string }) => x.status === 'PROCESSED' || x.status === 'DRY_RUN_SUCCEEDED') && r.body.results.length === 2;
    }, 60_000);
  });
  afterAll(async () => {
    await s.stop();
  });

  it('answers the account read back from the tables, in the create body shape, equal to what was sent in canonical form', async () => {
    const r = await s.request().get(`/v2/data-import/accounts/DEMO_ENERGY/${ext}/account/`);
    expect(r.status).toBe(200);
    expect(r.body.import_supplier).toBe('DEMO_ENERGY');
    expect(r.body.external_account_number).toBe(ext);
    expect(r.body.customers[0].mobile).toBe('+447911123456');
    expect(r.body.billing_postcode).toBe('LS1 4DY');
    expect(canonicalAccount(r.body)).toEqual(canonicalAccount(sent));
    // Read from the tables, not the payload: a stored value changed in the tables shows.
    await s.t.db('accounts').where({ external_account_number: ext }).update({ billing_name: 'Changed In The Table' });
    const changed = await s.request().get(`/v2/data-import/accounts/DEMO_ENERGY/${ext}/account/`);
    expect(changed.body.billing_name).toBe('Changed In The Table');
    await s.t.db('accounts').where({ external_account_number: ext }).update({ billing_name: sent.billing_name as string });
  });

  it('answers 404 not_found for an account not imported, a dry run, and a supplier outside the grant', async () => {
    for (const path of [`/v2/data-import/accounts/DEMO_ENERGY/NOPE-${s.id}/account/`, `/v2/data-import/accounts/DEMO_ENERGY/${dryExt}/account/`, `/v2/data-import/accounts/DEMO_ENERGY/NUL%00/account/`]) {
      const r = await s.request().get(path);
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail: expect.any(String), code: 'not_found' });
    }
    const other = await s.authHeader('OTHER_SUPPLIER');
    const r = await s.request().get(`/v2/data-import/accounts/DEMO_ENERGY/${ext}/account/`).set(other);
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ detail: expect.any(String), code: 'not_found' });
  });

  it('answers each account its status and the digest of the account as stored, the digest of the book account when intact', async () => {
    const unknown = `NOPE-${s.id}`;
    const r = await s.request().post('/v2/data-import/accounts/digests/').send({ import_supplier: 'DEMO_ENERGY', external_account_numbers: [unknown, ext, dryExt, ext] });
    expect(r.status).toBe(200);
    expect(r.body.not_found).toEqual([unknown]);
    expect(r.body.results).toEqual([
      expect.objectContaining({ external_account_number: ext, status: 'PROCESSED', kraken_identifier: expect.stringMatching(/^A-/), digest: accountDigest(sent) }),
      expect.objectContaining({ external_account_number: dryExt, status: 'DRY_RUN_SUCCEEDED', digest: null }),
    ]);
    // The stored digest moves with a stored value.
    await s.t.db('accounts').where({ external_account_number: ext }).update({ billing_name: 'Tampered' });
    const t = await s.request().post('/v2/data-import/accounts/digests/').send({ import_supplier: 'DEMO_ENERGY', external_account_numbers: [ext] });
    expect(t.body.results[0].digest).not.toBe(accountDigest(sent));
    await s.t.db('accounts').where({ external_account_number: ext }).update({ billing_name: sent.billing_name as string });
  });

  it('answers every number not_found for a supplier outside the grant', async () => {
    const other = await s.authHeader('OTHER_SUPPLIER');
    const r = await s.request().post('/v2/data-import/accounts/digests/').set(other).send({ import_supplier: 'DEMO_ENERGY', external_account_numbers: [ext] });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ results: [], not_found: [ext] });
  });

  it('answers a body of the wrong shape 400 validation_error with every issue, in the v2 error shape', async () => {
    const tooMany = Array.from({ length: 501 }, (_, i) => `X${i}`);
    const r = await s.request().post('/v2/data-import/accounts/digests/').send({ import_supplier: 'DEMO_ENERGY', external_account_numbers: tooMany, extra: 1 });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ code: 'validation_error', detail: expect.any(String), errors: expect.arrayContaining([expect.objectContaining({ attr: 'external_account_numbers' }), expect.objectContaining({ code: 'unknown_field' })]) });
    const bad = await s.request().post('/v2/data-import/accounts/digests/').set('content-type', 'application/json').send('{');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ code: 'parse_error', detail: expect.any(String), errors: [] });
    const unauthenticated = await s.request().post('/v2/data-import/accounts/digests/').set('Authorization', '').send({ import_supplier: 'DEMO_ENERGY', external_account_numbers: [ext] });
    expect(unauthenticated.status).toBe(401);
  });

  it('answers the totals of every account imported for the supplier, equal to those of the accounts sent', async () => {
    const r = await s.request().post('/v2/data-import/accounts/totals/').send({ import_supplier: 'DEMO_ENERGY' });
    expect(r.status).toBe(200);
    // The dry run imported nothing: one account, the one sent.
    const { accounts, customers, meter_points, meters, registers, ledger_balances, debts } = accountTotals(sent);
    expect(r.body).toEqual({ import_supplier: 'DEMO_ENERGY', accounts, customers, meter_points, meters, registers, ledger_balances: expect.any(String), debts: expect.any(String) });
    expect(Number(r.body.ledger_balances)).toBe(Number(ledger_balances));
    expect(Number(r.body.debts)).toBe(Number(debts));
    expect(accounts).toBe(1);
    // A second account counts too; an account whose import is not PROCESSED does not.
    const second = s.ext('REC-API-2');
    expect((await s.request().post('/v2/data-import/accounts/').send(uniqueAccount(second))).status).toBe(201);
    await eventually(async () => (await s.request().post('/v2/data-import/accounts/totals/').send({ import_supplier: 'DEMO_ENERGY' })).body.accounts === 2, 60_000);
    await s.t.db('import_processes').where({ external_account_number: second }).update({ status: 'ERRORED' });
    expect((await s.request().post('/v2/data-import/accounts/totals/').send({ import_supplier: 'DEMO_ENERGY' })).body.accounts).toBe(1);
    await s.t.db('import_processes').where({ external_account_number: second }).update({ status: 'PROCESSED' });
  });

  it('answers the totals of a supplier outside the grant, or unknown, as those of a supplier with no accounts', async () => {
    const zero = { accounts: 0, customers: 0, meter_points: 0, meters: 0, registers: 0, ledger_balances: '0', debts: '0' };
    const other = await s.authHeader('OTHER_SUPPLIER');
    const r = await s.request().post('/v2/data-import/accounts/totals/').set(other).send({ import_supplier: 'DEMO_ENERGY' });
    expect([r.status, r.body]).toEqual([200, { import_supplier: 'DEMO_ENERGY', ...zero }]);
    const unknown = await s.request().post('/v2/data-import/accounts/totals/').send({ import_supplier: 'NO_SUCH_SUPPLIER' });
    expect([unknown.status, unknown.body]).toEqual([200, { import_supplier: 'NO_SUCH_SUPPLIER', ...zero }]);
  });

  it('answers a totals body of the wrong shape 400 validation_error with every issue, an unreadable one parse_error, no credentials 401', async () => {
    const r = await s.request().post('/v2/data-import/accounts/totals/').send({ import_supplier: 'X'.repeat(65), extra: 1 });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ code: 'validation_error', detail: expect.any(String), errors: expect.arrayContaining([expect.objectContaining({ attr: 'import_supplier' }), expect.objectContaining({ code: 'unknown_field' })]) });
    for (const body of [{}, { import_supplier: 7 }, { import_supplier: '' }]) {
      const bad = await s.request().post('/v2/data-import/accounts/totals/').send(body);
      expect([bad.status, bad.body.code]).toEqual([400, 'validation_error']);
    }
    const unreadable = await s.request().post('/v2/data-import/accounts/totals/').set('content-type', 'application/json').send('{');
    expect([unreadable.status, unreadable.body]).toEqual([400, { code: 'parse_error', detail: expect.any(String), errors: [] }]);
    const unauthenticated = await s.request().post('/v2/data-import/accounts/totals/').set('Authorization', '').send({ import_supplier: 'DEMO_ENERGY' });
    expect(unauthenticated.status).toBe(401);
  });
});
