/**
 * Issue 50 on the real servers: the platform's Account as a client generated from the platform's
 * document sends it. A full account (`data-import generate --profile full`: every field path of the
 * platform's Account, an electricity bespoke rate with its registers and no unit_rate of its own, a
 * Business with its discriminator, several payment instructions) with every date-time sent without
 * an offset, as openapi-python-client sends a naive datetime, validates, imports and reads back
 * equal (the canonical form: those date-times read in Europe/London); a portfolio lead imports
 * without supply addresses.
 */
import { clearReadBack } from '../support/readBack';
import { eventually, startStack, Stack } from '../support/stack';
import { uniqueAccount } from '../support/fixtures';
import { accountDigest, canonicalAccount } from '../../account/canonical';
import { londonToday } from '../../account/dates';
import { createRng, generateAccount } from '../../cli/generate';

jest.setTimeout(240_000);

const OFFSET_DATETIME = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(\.\d+)?(Z|[+-]\d{2}:?\d{2})$/;
const london = new Intl.DateTimeFormat('sv-SE', { timeZone: 'Europe/London', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });

/** Every date-time with an offset as the same instant's London wall-clock time, without one. */
function withoutOffsets(value: unknown, count: { n: number }): unknown {
  if (Array.isArray(value)) return value.map((v) => withoutOffsets(v, count));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutOffsets(v, count)]));
  if (typeof value !== 'string') return value;
  const m = OFFSET_DATETIME.exec(value);
  if (!m) return value;
  count.n++;
  return `${london.format(new Date(value)).replace(' ', 'T')}${m[3] ?? ''}`;
}

describe('the platform\'s Account as its generated clients send it, on the real servers', () => {
  let s: Stack;
  const readBack = clearReadBack(() => s);
  const processed = (external: string) =>
    eventually(async () => {
      const status = (await s.request().get(`/v2/data-import/accounts/DEMO_ENERGY/${external}/`)).body.status as string;
      if (status === 'FAILED') throw new Error(`${external} failed`);
      return status === 'PROCESSED' ? true : undefined;
    }, 120_000);

  beforeAll(async () => {
    s = await startStack({ relay: false });
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('imports a full account with naive date-times and an electricity bespoke rate, and reads it back equal', async () => {
    const external = s.ext('CLIENT-FULL');
    const generated = generateAccount(createRng('issue-50'), { externalAccountNumber: external, today: londonToday(new Date()), profile: 'full' }) as unknown as Record<string, unknown>;
    const count = { n: 0 };
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const account = withoutOffsets(generated, count) as any;
    expect(count.n).toBeGreaterThan(5);
    const rates = account.supply_addresses.flatMap((a: any) => a.meter_points.filter((mp: any) => mp.supply_type === 'ELECTRICITY').flatMap((mp: any) => mp.agreements.flatMap((g: any) => g.bespoke_tariff_rates ?? [])));
    expect(rates.length).toBeGreaterThan(0);
    expect(rates.every((r: any) => r.unit_rate === undefined && r.registers.length > 0)).toBe(true);
    expect(account.business.enforce_business_contracts_exist).toBe(true);
    account.payment_instructions = [account.payment_instructions[0], { ...account.payment_instructions[0], reference: 'SECOND-MANDATE', instruction_identifier: 'PI-SECOND' }];

    const validated = await s.request().post('/v2/data-import/accounts/validate/').send(account);
    expect({ status: validated.status, errors: validated.body.errors }).toEqual({ status: 200, errors: undefined });
    expect((await s.request().post('/v2/data-import/accounts/').send(account)).status).toBe(201);
    await processed(external);
    expect(await readBack(external)).toEqual(canonicalAccount(account));
    const digest = (await s.request().post('/v2/data-import/accounts/digests/').send({ import_supplier: 'DEMO_ENERGY', external_account_numbers: [external] })).body.results[0].digest;
    expect(digest).toBe(accountDigest(account));
  });

  it('imports a portfolio lead without supply addresses, and refuses one with', async () => {
    const external = s.ext('CLIENT-LEAD');
    const lead = { ...uniqueAccount(external), is_portfolio_lead: true };
    const withAddresses = await s.request().post('/v2/data-import/accounts/validate/').send(lead);
    expect(withAddresses.status).toBe(400);
    expect(withAddresses.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ code: 'portfolio_lead_has_a_supply_address', attr: 'supply_addresses' })]));
    delete (lead as Record<string, unknown>).supply_addresses;
    expect((await s.request().post('/v2/data-import/accounts/').send(lead)).status).toBe(201);
    await processed(external);
    const back = await readBack(external);
    expect(back.supply_addresses).toBeUndefined();
    expect(back).toEqual(canonicalAccount(lead));
  });
});
