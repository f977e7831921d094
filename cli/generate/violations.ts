import type { Account, Transaction } from '../../account/schema';
import { parseDecimal } from '../../account/rules/decimal';
import type { RequiredFeatures } from './account';
import { addDays } from './dates';
import { breakCheckDigit } from './identifiers';
import { pence } from './money';

/**
 * Rule violations the generator can inject, one per account. Each breaks exactly one rule of a
 * valid generated account and returns the attr where the validator reports it, so a book carries
 * its own expected outcome (the `<out>.expected.json` sidecar).
 */
export interface Violation {
  code: string;
  /** What the account must contain for the violation to apply. */
  require?: RequiredFeatures;
  /** Breaks the account in place; returns the attr of the expected error. */
  apply(account: Account, ctx: { today: string }): string;
}

export interface ExpectedError {
  code: string;
  attr: string;
}

const MP0 = 'supply_addresses.0.meter_points.0';

function firstMeterPoint(a: Account) {
  return a.supply_addresses![0]!.meter_points[0]!;
}

function mutable(a: Account): Record<string, unknown> {
  return a as unknown as Record<string, unknown>;
}

/** Every string equal to `from` anywhere in `value` becomes `to` (in place). */
function replaceEverywhere(value: unknown, from: string, to: string): void {
  if (typeof value !== 'object' || value === null) return;
  const o = value as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (o[k] === from) o[k] = to;
    else replaceEverywhere(o[k], from, to);
  }
}

const VIOLATION_LIST: Violation[] = [
  {
    code: 'invalid_supply_point_identifier',
    apply(a) {
      // The legacy system's typo is in every place the identifier appears (a full account's
      // commission contracts, payment preferences and transactions name it too).
      const mp = firstMeterPoint(a);
      replaceEverywhere(a, mp.identifier, breakCheckDigit(mp.identifier));
      return `${MP0}.identifier`;
    },
  },
  {
    code: 'invalid_phone_number',
    apply(a) {
      // A digit lost in the legacy system: too short for the numbering plan.
      a.customers[0]!.mobile = a.customers[0]!.mobile!.slice(0, 8);
      return 'customers.0.mobile';
    },
  },
  {
    code: 'invalid_postcode',
    apply(a) {
      // The classic typing error: letter O for digit 0 in the inward code.
      const address = a.supply_addresses![0]!;
      const [outward, inward] = address.supply_postcode.split(' ');
      address.supply_postcode = `${outward} O${inward!.slice(1)}`;
      return 'supply_addresses.0.supply_postcode';
    },
  },
  {
    code: 'duplicate_transaction_ids',
    // A full account sends the spec's ledgers[] for it (its other form is the platform's top-level ledger).
    require: { ledgers: true },
    apply(a) {
      // The validator reads ledgers in order, current before historical transactions, and
      // reports the later of two equal ids.
      const order: [Transaction, string][] = [];
      a.ledgers!.forEach((ledger, l) => {
        for (const field of ['current_statement_transactions', 'historical_statement_transactions'] as const) {
          (ledger[field] ?? []).forEach((tx, t) => order.push([tx, `ledgers.${l}.${field}.${t}.transaction_id`]));
        }
      });
      const [last, attr] = order[order.length - 1]!;
      last.transaction_id = order[0]![0].transaction_id;
      return attr;
    },
  },
  {
    code: 'ledger_balances_not_equal_to_transfer_balance',
    apply(a) {
      const balance = parseDecimal(a.transfer_balance!);
      a.transfer_balance = pence(Number(balance.units) + 100);
      return 'transfer_balance';
    },
  },
  {
    code: 'missing_transfer_reading_for_register',
    require: { electricity: true },
    apply(a) {
      for (let s = 0; s < a.supply_addresses!.length; s++) {
        const mps = a.supply_addresses![s]!.meter_points;
        for (let m = 0; m < mps.length; m++) {
          if (mps[m]!.supply_type !== 'ELECTRICITY') continue;
          const meter = mps[m]!.meters![0]!;
          const r = meter.registers!.length - 1;
          const id = meter.registers![r]!.register_id;
          meter.transfer_readings = meter.transfer_readings!.filter((t) => t.register_id !== id);
          return `supply_addresses.${s}.meter_points.${m}.meters.0.registers.${r}`;
        }
      }
      throw new Error('missing_transfer_reading_for_register needs an electricity meter point');
    },
  },
  {
    code: 'tariff_code_not_found',
    apply(a) {
      const mp = firstMeterPoint(a);
      mp.agreements![0]!.tariff_code = mp.supply_type === 'ELECTRICITY' ? 'E-1R-LEGACY-FIX-19-M' : 'G-1R-LEGACY-FIX-19-M';
      return `${MP0}.agreements.0.tariff_code`;
    },
  },
  {
    code: 'unknown_field',
    apply(a) {
      mutable(a).legacy_loyalty_points = '120';
      return 'legacy_loyalty_points';
    },
  },
  {
    code: 'invalid_email',
    apply(a) {
      a.customers[0]!.email = a.customers[0]!.email!.replace('@', '.');
      return 'customers.0.email';
    },
  },
  {
    code: 'possible_test_email_address',
    apply(a) {
      a.customers[0]!.email = 'test@example.org';
      return 'customers.0.email';
    },
  },
  {
    code: 'market_participant_not_found',
    apply(a) {
      firstMeterPoint(a).mpid = 'ZZZZ';
      return `${MP0}.mpid`;
    },
  },
  {
    code: 'disputed_read_in_progress',
    apply(a) {
      firstMeterPoint(a).dr_in_progress = true;
      return `${MP0}.dr_in_progress`;
    },
  },
  {
    code: 'incorrect_format_for_tax_year',
    require: { warmHomeDiscount: true },
    apply(a) {
      const whd = a.warm_home_discount![0]!;
      const start = Number(whd.tax_year!.slice(0, 4));
      whd.tax_year = `${start}/${String((start + 2) % 100).padStart(2, '0')}`;
      return 'warm_home_discount.0.tax_year';
    },
  },
  {
    code: 'metadata_has_duplicate_keys',
    require: { metadata: true },
    apply(a) {
      const metadata = a.metadata!;
      metadata.push({ key: metadata[0]!.key, value: { duplicate: true } });
      return `metadata.${metadata.length - 1}.key`;
    },
  },
  {
    code: 'campaign_not_found',
    apply(a) {
      const campaigns = (a.account_campaigns ??= []);
      campaigns.push({ slug: 'spring-saver-2019', campaign_note: 'Legacy campaign' });
      return `account_campaigns.${campaigns.length - 1}.slug`;
    },
  },
  {
    code: 'last_payment_review_date_is_future_dated',
    apply(a, { today }) {
      // A full account may carry payment adequacy reviews instead (never both): the date replaces them.
      delete mutable(a).payment_adequacy_changes;
      a.last_payment_review_date = addDays(today, 30);
      return 'last_payment_review_date';
    },
  },
  {
    code: 'psr_invalid_industry_code',
    apply(a, { today }) {
      const psr = (a.customers[0]!.psr ??= []);
      psr.push({ elec_industry_code: '99', effective_from: addDays(today, -10) });
      return `customers.0.psr.${psr.length - 1}.elec_industry_code`;
    },
  },
];

export const VIOLATIONS: ReadonlyMap<string, Violation> = new Map(VIOLATION_LIST.map((v) => [v.code, v]));

/** The default of --violations: the violation codes a bulk-migration rehearsal is asked to cover (docs/bulk-migration.md). */
export const DEFAULT_VIOLATION_CODES = [
  'invalid_supply_point_identifier',
  'invalid_phone_number',
  'invalid_postcode',
  'duplicate_transaction_ids',
  'ledger_balances_not_equal_to_transfer_balance',
  'missing_transfer_reading_for_register',
  'tariff_code_not_found',
  'unknown_field',
] as const;

/** The violations named by `codes`; throws naming the unknown ones. */
export function violationsFor(codes: readonly string[]): Violation[] {
  const unknown = codes.filter((c) => !VIOLATIONS.has(c));
  if (unknown.length > 0) {
    throw new Error(`unknown violation code(s) ${unknown.join(', ')}; known: ${[...VIOLATIONS.keys()].join(', ')}`);
  }
  return codes.map((c) => VIOLATIONS.get(c)!);
}
