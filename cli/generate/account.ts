import type { Account, Customer, MeterPoint, Psr, SupplyAddress } from '../../account/schema';
import { londonToday } from '../../account/dates';
import { addDays, dateTime, daysBetween, monthEnd, monthStart, taxYear } from './dates';
import { generateLedgers, paymentSchedules } from './ledgers';
import { electricityMeterPoint, gasMeterPoint, type MeterPointPlan } from './meterPoints';
import { pence } from './money';
import { address, person, TOWNS, type Town } from './people';
import { PROFILE_SIZES, resolveProfile, type Profile } from './profiles';
import { fullAccount } from './full/account';
import type { Rng } from './rng';

/** Features an account must have (a violation needs something to break). */
export interface RequiredFeatures {
  electricity?: boolean;
  warmHomeDiscount?: boolean;
  metadata?: boolean;
  /** The spec's ledgers[] (a full account may send the platform's top-level ledger instead). */
  ledgers?: boolean;
}

export interface GenerateAccountOptions {
  externalAccountNumber: string;
  /** Import supplier code; default DEMO_ENERGY. */
  supplier?: string;
  /** `YYYY-MM-DD`; default today in Europe/London. Nothing is dated after it. */
  today?: string;
  /** Default typical. */
  profile?: Profile;
  require?: RequiredFeatures;
}

export const DEFAULT_SUPPLIER = 'DEMO_ENERGY';

const NOTE_BODIES = [
  'Customer asked for paper bills for the next two quarters.',
  'Called about a high bill; meter read taken and bill re-issued.',
  'Payment date moved at the customer’s request.',
  'Customer reported a faulty in-home display; replacement sent.',
  'Agreed a payment arrangement for the winter months.',
  'Customer moving in; opening reads confirmed by phone.',
  'Warm home discount application received.',
  'Complaint about estimated bills resolved with a smart meter read.',
] as const;
const METADATA = [
  ['legacy_tariff_family', () => ({ name: 'Fixed Saver', cohort: 7 })],
  ['legacy_account_segment', () => ({ segment: 'RESIDENTIAL', band: 'B' })],
  ['acquisition_source', () => ({ channel: 'comparison-site', partner: 'compare-energy' })],
  ['legacy_customer_since', () => ({ year: 2014 })],
] as const;
const DEBT_AGENCIES = ['Northgate Recoveries', 'Pennine Credit Services'] as const;
const SALES_CHANNELS = ['DIRECT', 'DIRECT', 'PRICE_COMPARISON', 'TELESALES', 'PARTNERSHIPS'] as const;

function shuffle<T>(rng: Rng, items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

function between(rng: Rng, [min, max]: readonly [number, number]): number {
  return rng.int(min, max);
}

function psrRecords(rng: Rng, today: string, fuels: { elec: boolean; gas: boolean }): Psr[] {
  const code = String(rng.int(1, 35));
  const from = addDays(today, -rng.int(30, 2_000));
  const records: Psr[] = [];
  if (fuels.elec) records.push({ elec_industry_code: code, effective_from: from });
  if (fuels.gas) records.push({ gas_industry_code: code, effective_from: from });
  return records;
}

function customer(rng: Rng, town: Town, today: string, n: number, family: string | undefined, fuels: { elec: boolean; gas: boolean }): Customer {
  const p = person(rng, town, today, n, family);
  const psr = rng.chance(0.15) ? psrRecords(rng, today, fuels) : [];
  return {
    ...p,
    ...(psr.length > 0 ? { psr } : {}),
    customer_preferences: {
      opted_into_sms: rng.chance(0.5),
      opted_into_recommended: rng.chance(0.3),
      opted_into_updates: rng.chance(0.6),
      opted_into_third_parties: rng.chance(0.1),
      opted_into_offers: rng.chance(0.3),
      is_user_psr_consent_obtained: psr.length > 0,
    },
  };
}

/**
 * One realistic account, valid against every rule of docs/spec/RULES.md with the default reference data
 * (DEFAULT_REFERENCE_DATA_ROWS) and an Ongoing supplier. Deterministic: the same rng state and
 * options give the same account.
 */
export function generateAccount(rng: Rng, opts: GenerateAccountOptions): Account {
  const today = opts.today ?? londonToday(new Date());
  const external = opts.externalAccountNumber;
  const profile = resolveProfile(opts.profile ?? 'typical', rng);
  if (profile === 'full') return fullAccount(rng, { externalAccountNumber: external, supplier: opts.supplier ?? DEFAULT_SUPPLIER, today, ledgers: opts.require?.ledgers });
  const sizes = PROFILE_SIZES[profile];
  const require = opts.require ?? {};

  const lastBilled = monthEnd(today, -1);
  const readingMonths = between(rng, sizes.readingMonths);
  const plan: MeterPointPlan = {
    today,
    lastBilled,
    // Supply started at least as long ago as the reading history reaches back.
    supplyStart: monthStart(lastBilled, -readingMonths - rng.int(0, 6)),
    readingMonths,
    prepay: rng.chance(0.15),
  };

  // Fuels: large accounts are dual fuel at every address; typical ones single or dual fuel.
  const fuelRoll = rng.next();
  let elec = profile === 'large' || fuelRoll < 0.85;
  const gas = profile === 'large' || fuelRoll >= 0.3;
  if (require.electricity) elec = true;

  const town = rng.pick(TOWNS);
  const firstHouse = rng.int(1, 180);
  const supplyAddresses: SupplyAddress[] = [];
  for (let a = 0; a < sizes.supplyAddresses; a++) {
    const addr = address(rng, a === 0 ? town : rng.pick(TOWNS), firstHouse + a * 2);
    const meterPoints: MeterPoint[] = [];
    if (elec) meterPoints.push(electricityMeterPoint(rng, plan));
    if (gas) meterPoints.push(gasMeterPoint(rng, plan));
    const landlord = a > 0;
    supplyAddresses.push({
      supply_address1: addr.lines[0],
      supply_address2: addr.lines[1],
      supply_address3: addr.lines[2],
      supply_address4: addr.lines[3],
      supply_address5: addr.lines[4],
      supply_postcode: addr.postcode,
      is_landlord: landlord,
      customer_at_supply_address_from_date: addDays(plan.supplyStart, -rng.int(0, 60)),
      meter_points: meterPoints,
      ...(landlord && rng.chance(0.5) ? { property_administrators: [person(rng, addr.town, today, 9)] } : {}),
    });
  }

  const customerCount = between(rng, sizes.customers);
  const customers: Customer[] = [];
  for (let c = 0; c < customerCount; c++) {
    const family = c > 0 && rng.chance(0.5) ? customers[0]!.family_name : undefined;
    customers.push(customer(rng, town, today, c, family, { elec, gas }));
  }
  const hasPsr = customers.some((c) => c.psr !== undefined);

  const { ledgers, transferBalance } = generateLedgers(rng, {
    externalAccountNumber: external,
    today,
    supplyStart: plan.supplyStart,
    closing: lastBilled,
    transactions: between(rng, sizes.transactions),
    ledgers: between(rng, sizes.ledgers),
    prepay: plan.prepay,
  });

  const notes: NonNullable<Account['notes']> = [];
  const noteCount = between(rng, sizes.notes);
  for (let n = 0; n < noteCount; n++) {
    const day = addDays(plan.supplyStart, rng.int(0, daysBetween(plan.supplyStart, today) - 1));
    notes.push({
      created_at: dateTime(day, rng.int(8, 18), rng.int(0, 59)),
      body: rng.pick(NOTE_BODIES),
      ...(rng.chance(0.3) ? { document_paths: [{ document_path: `/notes/${external}/letter-${day}-${n + 1}.pdf` }] } : {}),
    });
  }

  const statements: NonNullable<Account['statements']> = [];
  const statementCount = Math.min(between(rng, sizes.statements), readingMonths);
  for (let s = 0; s < statementCount; s++) {
    const from = monthStart(lastBilled, -s);
    const yyyymm = from.slice(0, 7).replace('-', '');
    statements.push({
      bill_period_from_date: from,
      bill_period_to_date: monthEnd(lastBilled, -s),
      statement_path: `/statements/${from.slice(0, 4)}/${from.slice(5, 7)}/${external}.pdf`,
      statement_id: `ST-${external}-${yyyymm}`,
    });
  }

  const metadataCount = require.metadata ? rng.int(1, 3) : rng.int(0, 3);
  const metadataKeys = shuffle(rng, [...METADATA]).slice(0, metadataCount);
  const smart = supplyAddresses.some((a) => a.meter_points.some((mp) => mp.meters?.[0]?.smart_type !== undefined));
  const inDebt = transferBalance < -10_000;
  const first = customers[0]!;
  const billingAddress = supplyAddresses[0]!;

  const account: Account = {
    import_supplier: opts.supplier ?? DEFAULT_SUPPLIER,
    external_account_number: external,
    customers,
    billing_name: `${first.given_name} ${first.family_name}`,
    billing_address1: billingAddress.supply_address1,
    billing_address2: billingAddress.supply_address2 ?? '',
    billing_address3: billingAddress.supply_address3 ?? '',
    billing_address4: billingAddress.supply_address4 ?? '',
    billing_address5: billingAddress.supply_address5 ?? '',
    billing_postcode: billingAddress.supply_postcode,
    account_type: 'DOMESTIC',
    sales_channel: rng.pick(SALES_CHANNELS),
    sales_subchannel: '',
    supply_addresses: supplyAddresses,
    transfer_balance: pence(transferBalance),
    ledgers,
    last_billed_to_date: lastBilled,
    ...(plan.prepay ? {} : { payment_schedules: paymentSchedules(rng, { supplyStart: plan.supplyStart, lastBilled }) }),
    references: [
      { namespace: 'legacy-crm', value: `CRM-${external}` },
      ...(rng.chance(0.4) ? [{ namespace: 'legacy-billing', value: `BILL-${external}` }] : []),
    ],
    notes,
    statements,
    ...(require.warmHomeDiscount || rng.chance(0.1)
      ? { warm_home_discount: [{ tax_year: taxYear(today), account_type: plan.prepay ? ('PREPAY' as const) : ('CREDIT' as const), group: 'CORE' as const }] }
      : {}),
    ...(inDebt && rng.chance(0.5)
      ? { dunning_path: { path_name: hasPsr ? 'vulnerable' : plan.prepay ? 'prepay' : 'standard', start_date: today } }
      : {}),
    ...(inDebt && rng.chance(0.1)
      ? {
          debts: [
            {
              agency_name: rng.pick(DEBT_AGENCIES),
              start_date: addDays(today, -rng.int(30, 400)),
              is_insolvent: false,
              aged_debt: [{ debt_amount: pence(-transferBalance), due_date: addDays(lastBilled, -rng.int(30, 120)) }],
            },
          ],
        }
      : {}),
    last_payment_review_date: addDays(today, -rng.int(30, 330)),
    next_bill_due_date: addDays(lastBilled, rng.int(20, 35)),
    ...(smart ? { smart_read_frequency: rng.pick(['HALF_HOURLY', 'DAILY', 'MONTHLY'] as const), smart_read_cycle_day: rng.int(1, 28) } : {}),
    communication_preference: rng.chance(0.7) ? 'ONLINE' : 'POST',
    ...(rng.chance(0.05) ? { document_accessibility: rng.pick(['LARGE_PRINT', 'BRAILLE', 'AUDIO'] as const) } : {}),
    ...(rng.chance(0.2) ? { account_campaigns: [{ slug: 'winter-support-2026', campaign_note: 'Enrolled by legacy CRM' }] } : {}),
    ...(metadataKeys.length > 0 ? { metadata: metadataKeys.map(([key, value]) => ({ key, value: value() })) } : {}),
  };
  return account;
}
