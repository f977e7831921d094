import request from 'supertest';
import { startStack, type Stack } from '../support/stack';
import { createSupplier } from '../../suppliers/store';
import { transition, upsertRun } from '../../imports/store';
import { importWorkflowId } from '../../imports/workflowId';

/**
 * `POST /v2/data-import/accounts/statuses/`: many accounts of one supplier in one request. Each
 * number with an import process answers exactly what the single-status GET answers for it, plus
 * its number; the rest are listed in not_found; a supplier outside the grant answers like one
 * that does not exist; a body of the wrong shape is a validation_error with every issue.
 */
describe('the bulk import status operation', () => {
  let s: Stack;
  const PATH = '/v2/data-import/accounts/statuses/';
  const X = (name: string) => `BULK-${name}-${s.id}`;

  async function seed(supplier: string, external: string, steps: ('IN_PROGRESS' | 'PROCESSED' | 'ERRORED' | 'CANCELLED')[]) {
    const at = new Date();
    const p = await upsertRun(s.t.db, null, {
      importSupplier: supplier,
      externalAccountNumber: external,
      payload: {},
      taskParams: {},
      isDryRun: false,
      scheduleWindowStart: at,
      scheduleWindowEnd: new Date(at.getTime() + 86_400_000),
      workflowId: importWorkflowId(supplier, external),
      warnings: [],
      now: at,
    });
    for (const status of steps) {
      await transition(s.t.db, p.id, p.run, {
        status,
        at: new Date(),
        ...(status === 'PROCESSED' ? { krakenIdentifier: 'A-0000B0C0' } : {}),
        ...(status === 'ERRORED' ? { error: { code: 'account_creation_failed', detail: 'boom', domain: 'import_process' as const } } : {}),
      });
    }
  }

  beforeAll(async () => {
    s = await startStack({ worker: false, relay: false });
    await createSupplier(s.t.db, 'OTHER_ENERGY', { status: 'Ongoing', marketParticipantId: 'OTHR' });
    await seed('DEMO_ENERGY', X('PENDING'), []);
    await seed('DEMO_ENERGY', X('RUNNING'), ['IN_PROGRESS']);
    await seed('DEMO_ENERGY', X('DONE'), ['IN_PROGRESS', 'PROCESSED']);
    await seed('DEMO_ENERGY', X('FAILED'), ['IN_PROGRESS', 'ERRORED']);
    await seed('DEMO_ENERGY', X('CANCELLED'), ['CANCELLED']);
    // Same number under another supplier: never answered for DEMO_ENERGY.
    await seed('OTHER_ENERGY', X('ELSEWHERE'), ['IN_PROGRESS', 'PROCESSED']);
  });
  afterAll(async () => {
    await s.stop();
  });

  it('answers each account with a process exactly as the single-status GET does, plus its number, and lists the rest in not_found', async () => {
    const numbers = [X('DONE'), X('MISSING-1'), X('PENDING'), X('FAILED'), X('ELSEWHERE'), X('RUNNING'), X('CANCELLED'), X('DONE'), X('MISSING-2')];
    const res = await s.request().post(PATH).send({ import_supplier: 'DEMO_ENERGY', external_account_numbers: numbers });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['not_found', 'results']);
    // Each number once, in the order of the request.
    expect(res.body.results.map((r: { external_account_number: string }) => r.external_account_number)).toEqual([X('DONE'), X('PENDING'), X('FAILED'), X('RUNNING'), X('CANCELLED')]);
    expect(res.body.not_found).toEqual([X('MISSING-1'), X('ELSEWHERE'), X('MISSING-2')]);
    expect(res.body.results.map((r: { status: string }) => r.status)).toEqual(['PROCESSED', 'PENDING', 'ERRORED', 'IN_PROGRESS', 'CANCELLED']);
    for (const r of res.body.results as { external_account_number: string }[]) {
      const single = await s.request().get(`/v2/data-import/accounts/DEMO_ENERGY/${encodeURIComponent(r.external_account_number)}/`);
      expect(single.status).toBe(200);
      expect(r).toEqual({ external_account_number: r.external_account_number, ...single.body });
    }
    const done = res.body.results[0];
    expect(done.kraken_identifier).toBe('A-0000B0C0');
    expect(res.body.results[2].latest_error).toEqual({ code: 'account_creation_failed', detail: 'boom', domain: 'import_process' });
  });

  it('answers an organisation without the supplier in its grant as for an unknown supplier: every number not_found', async () => {
    const numbers = [X('DONE'), X('MISSING-1')];
    const outsider = await s.authHeader('OTHER_ENERGY');
    const denied = await request(s.app.callback()).post(PATH).set(outsider).send({ import_supplier: 'DEMO_ENERGY', external_account_numbers: numbers });
    const unknown = await s.request().post(PATH).send({ import_supplier: 'NO_SUCH_SUPPLIER', external_account_numbers: numbers });
    expect(denied.status).toBe(200);
    expect(denied.body).toEqual({ results: [], not_found: numbers });
    expect(unknown.status).toBe(denied.status);
    expect(unknown.body).toEqual(denied.body);
    // The single GET answers both the same way too.
    const single = await request(s.app.callback()).get(`/v2/data-import/accounts/DEMO_ENERGY/${X('DONE')}/`).set(outsider);
    expect(single.status).toBe(404);
    // And its own supplier is answered to it.
    const own = await request(s.app.callback()).post(PATH).set(outsider).send({ import_supplier: 'OTHER_ENERGY', external_account_numbers: [X('ELSEWHERE')] });
    expect(own.body).toMatchObject({ results: [{ external_account_number: X('ELSEWHERE'), status: 'PROCESSED' }], not_found: [] });
  });

  it('answers 500 numbers in one request and refuses 501 with max_length', async () => {
    const many = Array.from({ length: 500 }, (_, i) => (i === 250 ? X('DONE') : X(`N${i}`)));
    const ok = await s.request().post(PATH).send({ import_supplier: 'DEMO_ENERGY', external_account_numbers: many });
    expect(ok.status).toBe(200);
    expect(ok.body.results).toHaveLength(1);
    expect(ok.body.not_found).toHaveLength(499);
    const tooMany = await s.request().post(PATH).send({ import_supplier: 'DEMO_ENERGY', external_account_numbers: [...many, X('N500')] });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toEqual({ detail: expect.any(String), code: 'validation_error', errors: [{ detail: expect.any(String), code: 'max_length', attr: 'external_account_numbers' }] });
  });

  it.each([
    ['an unknown field', { import_supplier: 'DEMO_ENERGY', external_account_numbers: ['A'], since: 'now' }, [['unknown_field', 'since']]],
    ['no supplier', { external_account_numbers: ['A'] }, [['required', 'import_supplier']]],
    ['no numbers', { import_supplier: 'DEMO_ENERGY' }, [['required', 'external_account_numbers']]],
    ['an empty list', { import_supplier: 'DEMO_ENERGY', external_account_numbers: [] }, [['invalid', 'external_account_numbers']]],
    ['a number that is not a string', { import_supplier: 'DEMO_ENERGY', external_account_numbers: ['A', 7] }, [['invalid', 'external_account_numbers.1']]],
    ['a list that is a string', { import_supplier: 'DEMO_ENERGY', external_account_numbers: 'A' }, [['invalid', 'external_account_numbers']]],
    ['a null supplier', { import_supplier: null, external_account_numbers: ['A'] }, [['null', 'import_supplier']]],
    ['a blank number', { import_supplier: 'DEMO_ENERGY', external_account_numbers: [''] }, [['blank', 'external_account_numbers.0']]],
    ['a number too long', { import_supplier: 'DEMO_ENERGY', external_account_numbers: ['x'.repeat(129)] }, [['max_length', 'external_account_numbers.0']]],
  ])('answers %s with validation_error and its issues', async (_what, body, issues) => {
    const res = await s.request().post(PATH).send(body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_error');
    expect(res.body.errors.map((e: { code: string; attr: string }) => [e.code, e.attr])).toEqual(issues);
  });

  it('answers parse_error for a body that is not an object, not_authenticated without credentials', async () => {
    const array = await s.request().post(PATH).set('Content-Type', 'application/json').send('[]');
    expect(array.status).toBe(400);
    expect(array.body.code).toBe('parse_error');
    const anonymous = await request(s.app.callback()).post(PATH).send({ import_supplier: 'DEMO_ENERGY', external_account_numbers: ['A'] });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.code).toBe('not_authenticated');
  });

  // PostgreSQL text cannot hold U+0000: such a number has no import process (the GET answers it
  // 404), and a schema-valid body is answered 200 (schemathesis' positive_data_acceptance).
  it('answers a number with a NUL byte not_found and a supplier with one as a supplier it does not know, never a 500', async () => {
    const nul = await s.request().post(PATH).send({ import_supplier: 'DEMO_ENERGY', external_account_numbers: [X('DONE'), 'X\u0000Y'] });
    expect(nul.status).toBe(200);
    expect(nul.body).toMatchObject({ results: [{ external_account_number: X('DONE'), status: 'PROCESSED' }], not_found: ['X\u0000Y'] });
    const only = await s.request().post(PATH).send({ import_supplier: 'DEMO_ENERGY', external_account_numbers: ['\u0000'] });
    expect(only.status).toBe(200);
    expect(only.body).toEqual({ results: [], not_found: ['\u0000'] });
    const supplier = await s.request().post(PATH).send({ import_supplier: 'DEMO\u0000ENERGY', external_account_numbers: ['A'] });
    expect(supplier.status).toBe(200);
    expect(supplier.body).toEqual({ results: [], not_found: ['A'] });
  });

  it('reads every number with one query', async () => {
    const queries: string[] = [];
    const onQuery = (q: { sql: string }) => queries.push(q.sql);
    s.t.db.on('query', onQuery);
    try {
      const numbers = [X('DONE'), X('PENDING'), X('FAILED'), X('RUNNING'), X('CANCELLED'), X('MISSING-1')];
      const res = await s.request().post(PATH).send({ import_supplier: 'DEMO_ENERGY', external_account_numbers: numbers });
      expect(res.status).toBe(200);
    } finally {
      s.t.db.off('query', onQuery);
    }
    expect(queries.filter((q) => /from "import_processes"/.test(q))).toHaveLength(1);
  });
});
