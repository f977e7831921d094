import { buildReferenceData, DEFAULT_REFERENCE_DATA_ROWS } from '../../../account/referenceData';
import { createAccountValidator, type SupplierConfig } from '../../../account/validator';
import { createRng, DEFAULT_VIOLATION_CODES, generateAccount, generateBook, generateBookEntries, VIOLATIONS } from '../../../cli/generate';

const TODAY = '2026-11-21';
const NOW = new Date('2026-11-21T10:00:00Z');
const SUPPLIER: SupplierConfig = {
  code: 'DEMO_ENERGY',
  status: 'Ongoing',
  documentRoot: '/srv/documents/demo',
  checkDocumentExistence: false,
  sendCustomerEmails: true,
};
const REF = buildReferenceData(DEFAULT_REFERENCE_DATA_ROWS);
const validator = createAccountValidator({
  referenceData: () => REF,
  suppliers: async (code) => (code === SUPPLIER.code ? SUPPLIER : null),
  documentStore: { exists: async () => true },
  now: () => NOW,
});

async function errorsOf(account: unknown): Promise<string[]> {
  const outcome = await validator.validate(account, { mode: 'create' });
  return outcome.ok ? [] : outcome.errors.map((e) => `${e.code}@${e.attr}`);
}

describe('generated accounts pass every rule', () => {
  // Full accounts carry every platform field (cli/generate/full/); a mixed book has some (MIXED_SHARES).
  // The counts follow what each profile adds: a large account is a typical one with bigger counts
  // (PROFILE_SIZES: 500–1,200 transactions, two dual-fuel addresses), so its per-account choices are
  // the 1,000 typical ones' and 150 large accounts (~120,000 transactions) cover its sizes; the mixed
  // book's own risk is the mixing, and its 500 hold ~75 large and ~50 full accounts more. Validating a
  // large or full account costs ~7 typical ones: 1,000 large and 1,000 mixed were ~75 % of this
  // file's time (148 s of 160 s at load 22; 44 s in CI).
  for (const [profile, count] of [['typical', 1000], ['large', 150], ['full', 300], ['mixed', 500]] as const) {
    it(`${count.toLocaleString('en-GB')} ${profile} accounts validate with zero errors`, async () => {
      const failures: string[] = [];
      let n = 0;
      for (const account of generateBook({ seed: `valid-${profile}`, count, today: TODAY, profile })) {
        n++;
        const errors = await errorsOf(account);
        if (errors.length > 0) failures.push(`${account.external_account_number}: ${errors.slice(0, 3).join(', ')}`);
      }
      expect(n).toBe(count);
      expect(failures.slice(0, 10)).toEqual([]);
    });
  }
});

describe('generated accounts look like the brief asks', () => {
  const typical = [...generateBook({ seed: 'shape', count: 300, today: TODAY, profile: 'typical' })];
  const large = [...generateBook({ seed: 'shape', count: 50, today: TODAY, profile: 'large' })];
  const meterPoints = (a: (typeof typical)[number]) => a.supply_addresses!.flatMap((s) => s.meter_points);
  const transactions = (a: (typeof typical)[number]) =>
    (a.ledgers ?? []).flatMap((l) => [...(l.current_statement_transactions ?? []), ...(l.historical_statement_transactions ?? [])]);

  it('mixes single and dual fuel, 1–3 registers, prepay and credit in a typical book', () => {
    const fuels = new Set(typical.map((a) => meterPoints(a).map((mp) => mp.supply_type).join('+')));
    expect([...fuels].sort()).toEqual(['ELECTRICITY', 'ELECTRICITY+GAS', 'GAS']);
    const registerCounts = new Set(typical.flatMap((a) => meterPoints(a).flatMap((mp) => mp.meters!.map((m) => m.registers?.length ?? 0))));
    expect([...registerCounts].sort()).toEqual([0, 1, 2, 3]);
    const prepay = typical.filter((a) => meterPoints(a).some((mp) => mp.meters![0]!.is_prepay === true));
    expect(prepay.length).toBeGreaterThan(10);
    expect(prepay.every((a) => meterPoints(a).every((mp) => mp.meters![0]!.prepay_details !== undefined))).toBe(true);
    expect(typical.some((a) => a.customers.some((c) => (c.psr ?? []).length > 0))).toBe(true);
  });

  it('keeps typical accounts near the example size and large ones large', () => {
    for (const a of typical) {
      expect(a.customers.length).toBeGreaterThanOrEqual(1);
      expect(a.customers.length).toBeLessThanOrEqual(2);
      expect(transactions(a).length).toBeGreaterThanOrEqual(20);
      expect(transactions(a).length).toBeLessThanOrEqual(200);
    }
    for (const a of large) {
      expect(a.customers).toHaveLength(2);
      expect(meterPoints(a)).toHaveLength(4);
      expect(transactions(a).length).toBeGreaterThanOrEqual(500);
      for (const mp of meterPoints(a)) {
        const registers = mp.meters![0]!.registers?.length ?? 1;
        expect(mp.meters![0]!.reading_history).toHaveLength(36 * registers);
      }
    }
  });

  it('dates nothing after today and gives every account its own external number and reference', () => {
    const all = [...typical, ...large];
    const text = JSON.stringify(all);
    const dates = text.match(/\d{4}-\d\d-\d\d/g) ?? [];
    // next_bill_due_date is the one date that is meant to lie ahead.
    const future = all.flatMap((a) => (JSON.stringify({ ...a, next_bill_due_date: undefined }).match(/\d{4}-\d\d-\d\d/g) ?? []).filter((d) => d > TODAY));
    expect(dates.length).toBeGreaterThan(1000);
    expect(future).toEqual([]);
    expect(new Set(typical.map((a) => a.external_account_number)).size).toBe(typical.length);
    expect(new Set(typical.map((a) => a.references![0]!.value)).size).toBe(typical.length);
    expect(typical[0]!.external_account_number).toBe('GEN-000001');
  });
});

describe('injected violations', () => {
  it('each listed violation yields exactly its code at its expected attr', async () => {
    const codes = [...VIOLATIONS.keys()];
    const entries = [...generateBookEntries({ seed: 'violations', count: codes.length * 6, today: TODAY, profile: 'mixed', invalidShare: 1, violations: codes })];
    const seen = new Set<string>();
    for (const { account, expected } of entries) {
      expect(expected).toBeDefined();
      seen.add(expected!.code);
      expect({ external: account.external_account_number, errors: await errorsOf(account) }).toEqual({
        external: account.external_account_number,
        errors: [`${expected!.code}@${expected!.attr}`],
      });
    }
    expect([...seen].sort()).toEqual([...codes].sort());
  });

  it('injects exactly the share asked for, spread over the default violations', () => {
    const entries = [...generateBookEntries({ seed: 7, count: 200, today: TODAY, invalidShare: 0.1 })];
    const invalid = entries.filter((e) => e.expected !== undefined);
    expect(invalid).toHaveLength(20);
    expect(new Set(invalid.map((e) => e.expected!.code))).toEqual(new Set(DEFAULT_VIOLATION_CODES));
  });

  it('rejects an unknown violation code', () => {
    expect(() => [...generateBookEntries({ seed: 1, count: 1, invalidShare: 1, violations: ['no_such_rule'] })]).toThrow(/no_such_rule/);
  });
});

describe('determinism', () => {
  it('gives the same book for the same seed and a different one for another seed', () => {
    const a = JSON.stringify([...generateBookEntries({ seed: 42, count: 50, today: TODAY, profile: 'mixed', invalidShare: 0.2 })]);
    const b = JSON.stringify([...generateBookEntries({ seed: 42, count: 50, today: TODAY, profile: 'mixed', invalidShare: 0.2 })]);
    const c = JSON.stringify([...generateBookEntries({ seed: 43, count: 50, today: TODAY, profile: 'mixed', invalidShare: 0.2 })]);
    expect(a).toBe(b);
    expect(c).not.toBe(a);
  });

  it('generates account i the same whatever the count', () => {
    const short = [...generateBook({ seed: 'count', count: 3, today: TODAY })];
    const long = [...generateBook({ seed: 'count', count: 10, today: TODAY })];
    expect(long.slice(0, 3)).toEqual(short);
  });

  it('generateAccount draws only from the rng it is given', () => {
    const one = generateAccount(createRng('x'), { externalAccountNumber: 'X-1', today: TODAY });
    const two = generateAccount(createRng('x'), { externalAccountNumber: 'X-1', today: TODAY });
    expect(two).toEqual(one);
  });
});
