/**
 * Issue 39 finding 6: account references are unique within a tenant (an import supplier, and so
 * the organisations granted it), not across all of them. Before, organisation B learnt that
 * another tenant held a reference (`reference_already_exists`, "belongs to another account") and,
 * importing it first, blocked A's import of it.
 */
import { createSupplier } from '../../suppliers/store';
import { eventually, startStack, Stack } from '../support/stack';
import { uniqueAccount } from '../support/fixtures';

describe('account references: unique within a tenant, invisible across tenants', () => {
  let s: Stack;
  let b: { Authorization: string };

  beforeAll(async () => {
    s = await startStack();
    await createSupplier(s.t.db, 'TENANT_B_ENERGY', { status: 'Ongoing', marketParticipantId: 'DEMO' });
    // Organisation B: granted only its own supplier. s.request() is organisation A (DEMO_ENERGY).
    b = await s.authHeader('TENANT_B_ENERGY');
  }, 120_000);
  afterAll(async () => {
    await s.stop();
  });

  const account = (supplier: string, ext: string, reference: string) => ({
    ...uniqueAccount(ext),
    import_supplier: supplier,
    references: [{ namespace: 'legacy-crm', value: reference }],
  });
  const asA = () => s.request();
  const asB = () => s.request().set(b);

  async function imported(call: () => ReturnType<Stack['request']>, supplier: string, ext: string, reference: string): Promise<void> {
    const res = await call().post('/v2/data-import/accounts/').send(account(supplier, ext, reference));
    expect(res.status).toBe(201);
    const done = await eventually(async () => {
      const r = await call().get(`/v2/data-import/accounts/${supplier}/${ext}/`);
      return ['PROCESSED', 'FAILED', 'CANCELLED'].includes(r.body.status) ? r.body : undefined;
    }, 120_000);
    expect({ status: done.status, errors: done.errors ?? done.validation_errors }).toEqual(expect.objectContaining({ status: 'PROCESSED' }));
  }

  it('B validates and imports a reference A holds, with the answer of a reference nobody holds; A keeps its account', async () => {
    const reference = `CRM-${s.ext('5512093')}`;
    await imported(asA, 'DEMO_ENERGY', s.ext('TEN-A1'), reference);

    const held = await asB().post('/v2/data-import/accounts/validate/').send(account('TENANT_B_ENERGY', s.ext('TEN-B1'), reference));
    const free = await asB().post('/v2/data-import/accounts/validate/').send(account('TENANT_B_ENERGY', s.ext('TEN-B1'), `${reference}-free`));
    // Before the fix: 400 with reference_already_exists ("belongs to another account").
    expect(JSON.stringify(held.body)).not.toContain('reference_already_exists');
    expect(held.status).toBe(free.status);
    expect(held.status).toBe(200);
    expect(held.body).toEqual(JSON.parse(JSON.stringify(free.body).replaceAll(`${reference}-free`, reference)));

    await imported(asB, 'TENANT_B_ENERGY', s.ext('TEN-B1'), reference);
    const a = await asA().get(`/v2/data-import/accounts/DEMO_ENERGY/${s.ext('TEN-A1')}/account/`);
    expect(a.status).toBe(200);
    expect(a.body.references).toEqual([expect.objectContaining({ namespace: 'legacy-crm', value: reference })]);
  });

  it('B importing a reference first does not block A importing it (no squatting)', async () => {
    const reference = `CRM-${s.ext('squat')}`;
    await imported(asB, 'TENANT_B_ENERGY', s.ext('TEN-B2'), reference);
    const validated = await asA().post('/v2/data-import/accounts/validate/').send(account('DEMO_ENERGY', s.ext('TEN-A2'), reference));
    expect(validated.status).toBe(200);
    await imported(asA, 'DEMO_ENERGY', s.ext('TEN-A2'), reference);
  });

  it('within a tenant a reference still belongs to one account: reference_already_exists', async () => {
    const reference = `CRM-${s.ext('own')}`;
    await imported(asA, 'DEMO_ENERGY', s.ext('TEN-A3'), reference);
    const res = await asA().post('/v2/data-import/accounts/validate/').send(account('DEMO_ENERGY', s.ext('TEN-A4'), reference));
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('reference_already_exists');
  });
});
