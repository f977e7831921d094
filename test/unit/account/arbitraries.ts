import fc from 'fast-check';
import type { Account, MeterPoint, Meter } from '../../../account/schema';

/**
 * fast-check arbitraries of *valid* accounts (against DEFAULT_REFERENCE_DATA_ROWS and today =
 * 2026-11-21) of varied shape: 1–3 customers, 1–2 supply addresses with 1–3 meter points each
 * (electricity or gas), 1–3 registers per electricity meter, reading history, EAC/AQ history,
 * 0–2 ledgers whose balances add up to the transfer balance.
 */

const MPAN_PRIMES = [3, 5, 7, 13, 17, 19, 23, 29, 31, 37, 41, 43];

/** Appends the check digit to a 12-digit MPAN core prefix. */
export function withMpanCheckDigit(first12: string): string {
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(first12[i]) * MPAN_PRIMES[i];
  return first12 + String((sum % 11) % 10);
}

/** Appends the two check digits to an MPRN body. */
export function withMprnCheckDigits(body: string): string {
  let sum = 0;
  for (let i = 0; i < body.length; i++) sum += Number(body[i]) * (body.length - i);
  return body + String(sum % 11).padStart(2, '0');
}

const digits = (n: number) => fc.array(fc.integer({ min: 0, max: 9 }), { minLength: n, maxLength: n }).map((d) => d.join(''));

export const mpanArb = fc
  .tuple(fc.integer({ min: 10, max: 36 }), digits(10))
  .map(([dist, rest]) => withMpanCheckDigit(String(dist) + rest));
export const mprnArb = fc
  .tuple(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 3, max: 7 }).chain((n) => digits(n)))
  .map(([first, rest]) => withMprnCheckDigits(String(first) + rest));

const KNOWN_TPRS = ['00001', '00002', '00043', '00051', '00206', '00210', '00221'];
const MOBILES = ['07911 123456', '07534 567890', '+44 7911 123456', '07400123456'];
const LANDLINES = ['020 7946 0123', '0113 496 0000', '', '01534 123456'];
const POSTCODES = ['LS1 4DY', 'SW1A 1AA', 'm1 1ae', 'EC1A1BB', 'B33 8TH'];

/** Months back from 2026-10 as `YYYY-MM-28` dates (always real days, never in the future). */
function monthEnd(back: number): string {
  const d = new Date(Date.UTC(2026, 9 - back, 28));
  return d.toISOString().slice(0, 10);
}

const decimalArb = fc
  .tuple(fc.integer({ min: 0, max: 99999 }), fc.integer({ min: 0, max: 99 }))
  .map(([i, f]) => `${i}.${String(f).padStart(2, '0')}`);

const customerArb = fc.record(
  {
    given_name: fc.constantFrom('Aoife', 'Tomasz', 'Priya', ''),
    family_name: fc.constantFrom('Ní Bhriain', 'Wójcik', 'Shah'),
    email: fc.constantFrom('a.person@example.org', 'someone@example.net', ''),
    mobile: fc.constantFrom(...MOBILES),
    landline: fc.constantFrom(...LANDLINES),
    date_of_birth: fc.constantFrom('1981-03-14', '2000-02-29'),
    psr: fc.array(
      fc.record({
        code: fc.integer({ min: 1, max: 35 }).map(String),
        fuel: fc.constantFrom('elec_industry_code', 'gas_industry_code'),
      }).map(({ code, fuel }) => ({ [fuel]: code, effective_from: '2021-06-01' })),
      { maxLength: 2 },
    ),
  },
  { requiredKeys: ['given_name', 'family_name'] },
);

function electricityMeter(serial: string, tprs: string[], months: number): Meter {
  const registers = tprs.map((tpr, r) => ({ register_id: String(r + 1), tpr, number_of_digits: 6, is_settlement: true }));
  return {
    meter_serial_number: serial,
    installed_on: '2019-08-12',
    registers,
    transfer_readings: registers.map((r) => ({ register_id: r.register_id, reading_date: '2026-10-31', reading_value: '1000.0', reading_type: 'CUSTOMER' as const })),
    reading_history: Array.from({ length: months }, (_, m) =>
      registers.map((r) => ({ register_id: r.register_id, reading_date: monthEnd(m + 1), reading_value: String(900 - m), reading_type: 'ROUTINE' as const, billed: true })),
    ).flat(),
    is_prepay: false,
  };
}

function gasMeter(serial: string, months: number): Meter {
  return {
    meter_serial_number: serial,
    installed_on: '2015-05-20',
    gas_number_of_digits: 5,
    transfer_readings: [{ reading_date: '2026-10-31', reading_value: '04512', reading_type: 'CUSTOMER' }],
    reading_history: Array.from({ length: months }, (_, m) => ({ reading_date: monthEnd(m + 1), reading_value: String(4500 - m), reading_type: 'ROUTINE' as const, billed: true })),
  };
}

const meterPointShapeArb = fc.record({
  gas: fc.boolean(),
  tprs: fc.uniqueArray(fc.constantFrom(...KNOWN_TPRS), { minLength: 1, maxLength: 3 }),
  meters: fc.integer({ min: 1, max: 2 }),
  months: fc.integer({ min: 0, max: 6 }),
  aqYears: fc.integer({ min: 0, max: 3 }),
});

interface MeterPointShape {
  gas: boolean;
  tprs: string[];
  meters: number;
  months: number;
  aqYears: number;
}

function meterPoint(identifier: string, shape: MeterPointShape, n: number): MeterPoint {
  const meters = Array.from({ length: shape.meters }, (_, k) =>
    shape.gas ? gasMeter(`G${n}M${k}`, shape.months) : electricityMeter(`E${n}M${k}`, shape.tprs, shape.months),
  );
  const base = {
    identifier,
    agreements: [{ tariff_code: shape.gas ? 'G-1R-VAR-22-11-01-M' : 'E-2R-VAR-22-11-01-M', effective_from: '2022-11-01' }],
    mpid: 'DEMO',
    supply_start_date: '2022-11-01',
    meters,
    et_in_progress: false,
    dr_in_progress: false,
  };
  if (shape.gas) {
    const aq_history = Array.from({ length: shape.aqYears }, (_, y) => {
      const from = `${2023 + y}-04-01`;
      return y === shape.aqYears - 1 ? { effective_from: from, consumption: '11230' } : { effective_from: from, effective_to: `${2024 + y}-03-31`, consumption: '11890' };
    });
    return { ...base, supply_type: 'GAS', shipper_mpid: 'DSH', ...(aq_history.length ? { aq_history } : {}) };
  }
  return {
    ...base,
    supply_type: 'ELECTRICITY',
    profile_class: 2,
    ssc: '0151',
    eac_history: shape.tprs.map((tpr) => ({ effective_from: '2025-11-01', tpr, consumption: '2450.0', source: 'D0019' as const })),
  };
}

export const accountArb: fc.Arbitrary<Account> = fc
  .record({
    customers: fc.array(customerArb, { minLength: 1, maxLength: 3 }),
    addressShapes: fc.array(fc.array(meterPointShapeArb, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 2 }),
    mpans: fc.uniqueArray(mpanArb, { minLength: 6, maxLength: 6 }),
    mprns: fc.uniqueArray(mprnArb, { minLength: 6, maxLength: 6 }),
    postcodes: fc.array(fc.constantFrom(...POSTCODES), { minLength: 2, maxLength: 2 }),
    ledgerBalances: fc.array(decimalArb, { maxLength: 2 }),
    transactions: fc.array(fc.tuple(decimalArb, fc.integer({ min: 0, max: 40 })), { maxLength: 8 }),
    withOptional: fc.boolean(),
  })
  .map((g) => {
    let n = 0;
    const supply_addresses = g.addressShapes.map((shapes, a) => ({
      supply_address1: `${a + 1} Harbour Row`,
      supply_address2: '',
      supply_postcode: g.postcodes[a],
      meter_points: shapes.map((shape) => {
        n++;
        return meterPoint(shape.gas ? g.mprns[n - 1] : g.mpans[n - 1], shape, n);
      }),
    }));
    const ledgers = g.ledgerBalances.map((balance, l) => ({
      current_statement_transactions: g.transactions.map(([amount, day], t) => ({
        transaction_id: `TX-${l}-${t}`,
        transaction_date: monthEnd(day % 12),
        amount,
        type: 'PAYMENT' as const,
      })),
      ledger_balance: balance,
    }));
    // The transfer balance is the exact sum of the ledger balances (in pence, no float drift).
    const pence = g.ledgerBalances.reduce((s, b) => s + BigInt(b.replace('.', '')), 0n);
    const transfer_balance = `${pence / 100n}.${String(pence % 100n).padStart(2, '0')}`;
    const account: Account = {
      import_supplier: 'DEMO_ENERGY',
      external_account_number: 'LEGACY-1',
      customers: g.customers,
      supply_addresses,
      ...(ledgers.length ? { ledgers, transfer_balance } : {}),
    };
    if (g.withOptional) {
      Object.assign(account, {
        billing_postcode: g.postcodes[0],
        payment_schedules: [{ amount: '95.00', day_of_month: 3, frequency: 'MONTHLY', means: 'DD', start_date: '2024-01-03' }],
        references: [{ namespace: 'legacy-crm', value: 'CRM-1' }],
        account_campaigns: [{ slug: 'winter-support-2026' }],
        metadata: [{ key: 'k', value: { any: ['thing'] } }],
        warm_home_discount: [{ tax_year: '1999/00', account_type: 'CREDIT', group: 'CORE' }],
        notes: [{ created_at: '2026-06-14T09:31:00+01:00', body: 'x' }],
        dunning_path: { path_name: 'standard', start_date: '2026-12-01' },
      });
    }
    return account;
  });
