import { validateAccountDetails } from 'uk-modulus-check';
import { PLATFORM_ACCOUNT, platformValues } from '../../../account/platformAccount';
import { isValidMpan, isValidMprn } from '../../../account/rules/supplyPointIds';
import { accountPaths, ALTERNATIVES, createRng, generateAccount, generateBook, MIXED_SHARES, NEVER_CARRIED, under } from '../../../cli/generate';

const TODAY = '2026-11-21';
const PLATFORM_PATHS = Object.keys(PLATFORM_ACCOUNT);
type J = Record<string, any>;

const book = [...generateBook({ seed: 'full-paths', count: 40, today: TODAY, profile: 'full' })] as unknown as J[];

/** The options of each alternative group an account carries (by the paths as sent). */
function chosen(raw: Set<string>): string[][] {
  return ALTERNATIVES.map((g) => Object.entries(g.options).filter(([, prefixes]) => [...raw].some((p) => prefixes.some((pre) => under(p, pre)))).map(([name]) => name));
}

const meterPoints = (a: J): J[] => a.supply_addresses.flatMap((s: J) => s.meter_points);
const meters = (a: J): [J, J][] => meterPoints(a).flatMap((mp) => mp.meters.map((m: J) => [mp, m] as [J, J]));
const transactions = (a: J): J[] => {
  const ledgers = a.ledgers ?? [a];
  return ledgers.flatMap((l: J) => [...(l.current_statement_transactions ?? []), ...(l.historical_statement_transactions ?? [])]);
};

describe('a full account carries every field path of the platform\'s Account', () => {
  it('carries each path but those of the options it did not choose and those the platform refuses on any account', () => {
    for (const account of book) {
      const paths = accountPaths(account);
      const picks = chosen(paths.raw);
      const notChosen = ALTERNATIVES.flatMap((g, i) => Object.entries(g.options).filter(([name]) => !picks[i]!.includes(name)).flatMap(([, prefixes]) => prefixes));
      const missing = PLATFORM_PATHS.filter((p) => !paths.platform.has(p) && NEVER_CARRIED[p] === undefined && !notChosen.some((pre) => under(p, pre)));
      expect({ account: account.external_account_number, missing }).toEqual({ account: account.external_account_number, missing: [] });
    }
  });

  it('takes exactly one option of each alternative group, and a book takes every option', () => {
    const seen = ALTERNATIVES.map(() => new Set<string>());
    for (const account of book) {
      const picks = chosen(accountPaths(account).raw);
      picks.forEach((options, i) => {
        expect({ group: ALTERNATIVES[i]!.name, options: options.length }).toEqual({ group: ALTERNATIVES[i]!.name, options: 1 });
        seen[i]!.add(options[0]!);
      });
    }
    ALTERNATIVES.forEach((g, i) => expect([...seen[i]!].sort()).toEqual(Object.keys(g.options).sort()));
  });

  it('covers, over a book, every platform path but the ones the platform refuses on any account', () => {
    const union = new Set(book.flatMap((a) => [...accountPaths(a).platform]));
    expect(PLATFORM_PATHS.filter((p) => !union.has(p))).toEqual(Object.keys(NEVER_CARRIED));
  });

  it('sends no path outside the platform\'s Account but the spec\'s ledgers[] and the Direct Debit bank details', () => {
    const other = new Set(book.flatMap((a) => [...accountPaths(a).other]));
    expect([...other].sort()).toEqual(['ledgers', 'ledgers.*.ledger_balance', 'payment_instructions.*.bank_account_number', 'payment_instructions.*.sort_code']);
  });

  it('takes every value of a field with a platform value set from that set (but the codes of this service\'s own registers)', () => {
    // The supplier is one registered here; a campaign slug one of the reference data's.
    const ownRegisters = new Set(['import_supplier', 'account_campaigns.*.slug']);
    const wrong: string[] = [];
    const check = (value: unknown, path: string) => {
      const field = PLATFORM_ACCOUNT[path];
      if (field === undefined || typeof value !== 'string' || ownRegisters.has(path)) return;
      const values = field.enum ?? field.items?.enum;
      if (values !== undefined && !platformValues(path).includes(value) && value !== '') wrong.push(`${path}=${value}`);
    };
    const walk = (value: unknown, path: string): void => {
      if (Array.isArray(value)) return value.forEach((v) => walk(v, `${path}.*`));
      if (typeof value !== 'object' || value === null) return check(value, path);
      for (const [k, v] of Object.entries(value)) walk(v, path === '' ? k : `${path}.${k}`);
    };
    // A ledgers[] item holds the platform's top-level ledger fields.
    for (const { ledgers, ...rest } of book) [rest, ...((ledgers as J[] | undefined) ?? [])].forEach((part) => walk(part, ''));
    expect([...new Set(wrong)]).toEqual([]);
  });
});

describe('a full account\'s values are realistic and consistent', () => {
  it('has supply point identifiers with valid check digits, a DCC device id on each smart meter and bank details that pass the modulus check', () => {
    for (const a of book) {
      for (const mp of meterPoints(a)) expect(mp.supply_type === 'ELECTRICITY' ? isValidMpan(mp.identifier) : isValidMprn(mp.identifier)).toBe(true);
      for (const [, m] of meters(a)) {
        if (m.smart_type === 'SMETS2') expect(m.smart_device_id).toMatch(/^([0-9A-F]{2}-){7}[0-9A-F]{2}$/);
        else expect(m.smart_device_id).toBeUndefined();
      }
      const [instruction] = a.payment_instructions;
      expect(validateAccountDetails(instruction.sort_code, instruction.bank_account_number)).toBe(true);
      expect(a.dd_reference).toBe(instruction.reference);
      expect(a.commission_contracts.map((c: J) => c.mpxn).every((id: string) => meterPoints(a).some((mp) => mp.identifier === id))).toBe(true);
    }
  });

  it('gives a VAT number whose check digits bring the weighted sum to a multiple of 97', () => {
    for (const a of book) {
      const vat: string = a.fit.vat_number;
      expect(vat).toMatch(/^GB\d{9}$/);
      const sum = [...vat.slice(2, 9)].reduce((s, d, i) => s + Number(d) * (8 - i), 0) + Number(vat.slice(9));
      expect(sum % 97).toBe(0);
      expect(a.business.details).toContainEqual({ key: 'vat_number', value: vat });
    }
  });

  it('dates each record consistently: starts before ends, installation before removal and commissioning', () => {
    for (const a of book) {
      for (const [, m] of meters(a)) {
        if (m.removed_on !== undefined) expect(m.installed_on < m.removed_on).toBe(true);
        if (m.smart_commissioned_on !== undefined) expect(m.installed_on <= m.smart_commissioned_on).toBe(true);
        if (m.smart_commissioned_on !== undefined) expect(m.smart_commissioned_on <= TODAY).toBe(true);
      }
      for (const mp of meterPoints(a)) {
        for (const g of mp.agreements) if (g.effective_to) expect(g.effective_from <= g.effective_to).toBe(true);
        for (const e of [...(mp.ccl_exemptions ?? []), ...(mp.vat_exemptions ?? [])]) if (e.effective_to) expect(e.effective_from < e.effective_to).toBe(true);
        for (const list of [mp.configuration_periods ?? [], mp.capacity_values ?? []]) {
          for (let i = 1; i < list.length; i++) expect(list[i].effective_from_date).toBe(list[i - 1].effective_to_date);
          expect(list.length === 0 || list[list.length - 1].effective_to_date === undefined).toBe(true);
        }
      }
      for (const p of a.customers.flatMap((c: J) => c.psr ?? [])) if (p.effective_to) expect(Date.parse(p.effective_from) < Date.parse(p.effective_to)).toBe(true);
      for (const c of a.account_campaigns) expect(c.start_date < c.expiry_date).toBe(true);
      for (const d of a.deposit_agreements) expect(d.fulfilled_at.slice(0, 10) <= d.last_interest_date).toBe(true);
      for (const o of a.partner_organisations) expect(o.valid_from < o.valid_to).toBe(true);
      for (const t of transactions(a)) expect(t.transaction_date <= TODAY).toBe(true);
    }
  });

  it('puts units_of_measure on gas meters only, export_type on electricity meter points only, agents or agents to appoint but not both', () => {
    for (const a of book) {
      for (const [mp, m] of meters(a)) if (m.units_of_measure !== undefined) expect(mp.supply_type).toBe('GAS');
      expect(meters(a).some(([mp, m]) => mp.supply_type === 'GAS' && m.units_of_measure === 'SCFH')).toBe(true);
      for (const mp of meterPoints(a)) {
        if (mp.export_type !== undefined) expect(mp.supply_type).toBe('ELECTRICITY');
        expect(mp.agents !== undefined && [mp.dc_to_appoint, mp.mop_to_appoint, mp.mam_to_appoint].some((x) => x !== undefined)).toBe(false);
      }
    }
  });

  it('attaches each FiT meter to an extension of the installation, the export one to the account\'s export meter', () => {
    for (const a of book) {
      const fitIds = a.fit.installations.map((i: J) => i.fit_id);
      for (const m of a.fit.meters) {
        expect(m.extensions.every((e: string) => fitIds.some((id: string) => e.startsWith(`${id}-`)))).toBe(true);
        expect(m.transfer_reading.reading_date).toBe(m.last_billed_to_date);
      }
      const exportMeter = a.fit.meters.find((m: J) => m.type === 'EXPORT');
      const exportPoint = meterPoints(a).find((mp) => mp.export_type !== undefined)!;
      expect(exportMeter.mpan).toBe(exportPoint.identifier);
      expect(exportPoint.meters.map((m: J) => m.meter_serial_number)).toContain(exportMeter.serial_number);
      expect(a.fit.installations[0].address.postcode).toBe(a.supply_addresses[0].supply_postcode);
    }
  });

  it('keeps the ledger balanced: the last statement balance and the current transactions (top-ups left out) make the transfer balance', () => {
    const signs: Record<string, number> = { PAYMENT: 1, CREDIT: 1, CHARGE: -1, SUPPLY_CHARGE: -1, REPAYMENT: -1 };
    const pence = (d: string) => Math.round(Number(d) * 100);
    for (const a of book) {
      const l = a.ledgers?.[0] ?? a;
      const current = (l.current_statement_transactions as J[]).filter((t) => t.to_prepay_meter_serial_number === undefined).reduce((s, t) => s + signs[t.type]! * pence(t.amount), 0);
      expect(pence(l.last_statement_balance) + current).toBe(pence(a.transfer_balance));
      for (const t of l.historical_statement_transactions as J[]) expect(t.transaction_date <= l.last_statement_closing_date).toBe(true);
      for (const t of l.current_statement_transactions as J[]) expect(t.transaction_date > l.last_statement_closing_date).toBe(true);
    }
  });
});

describe('full accounts in books', () => {
  it('gives the same full account for the same seed and another for another seed', () => {
    const one = generateAccount(createRng('same'), { externalAccountNumber: 'F-1', today: TODAY, profile: 'full' });
    const two = generateAccount(createRng('same'), { externalAccountNumber: 'F-1', today: TODAY, profile: 'full' });
    const other = generateAccount(createRng('other'), { externalAccountNumber: 'F-1', today: TODAY, profile: 'full' });
    expect(JSON.stringify(two)).toBe(JSON.stringify(one));
    expect(JSON.stringify(other)).not.toBe(JSON.stringify(one));
  });

  it('mixes about one full account in ten into a mixed book', () => {
    const mixed = [...generateBook({ seed: 'mixed-share', count: 1000, today: TODAY, profile: 'mixed' })] as unknown as J[];
    const full = mixed.filter((a) => a.fit !== undefined).length;
    expect(full).toBeGreaterThan(1000 * MIXED_SHARES.full * 0.7);
    expect(full).toBeLessThan(1000 * MIXED_SHARES.full * 1.3);
  });
});
