import { PLATFORM_ACCOUNT, platformValues } from '../../../account/platformAccount';
import { servicePaths } from '../../../scripts/platformFields';
import { buildReferenceData, DEFAULT_REFERENCE_DATA_ROWS } from '../../../account/referenceData';
import { everyPlatformField } from '../../support/platformSample';
import { check, errorsOf, example, validator } from './helpers';

/**
 * Every platform value of a shared field is accepted (issue 35): for each field path of the
 * platform's Account (account/platformAccount.json, derived from its document) that this service's
 * Account has too, every value its document lists, every format it documents and its longest
 * length, each set in turn on a valid account, validates. The paths and values come from the
 * description, so a value the platform adds is tested as soon as the description is regenerated;
 * a shared field the base account below does not reach fails the test instead of being skipped.
 *
 * Shared: the same path here, or the platform's top-level transactions and last statement at their
 * place in the spec's `ledgers[]` (the same transaction; the top-level form is area 9 of the issue).
 * Not covered: `null`, which the document lists among the values of some nullable fields (a field's
 * nullability, not a value).
 */

/** Values refused on purpose, `path=value`, each with its reason (docs/platform-compatibility.md). */
const REFUSED_ON_PURPOSE: Record<string, string> = {
  'account_campaigns.*.slug=': 'a campaign is named by its slug: identifying text is never blank (spec general rule 6)',
};

/** Fields whose platform value set is refused on purpose, each with its reason. */
const FIELDS_REFUSED_ON_PURPOSE: Record<string, string> = {
  import_supplier: "the tenant copy enumerates its own supplier codes; here any supplier of the caller's grant (docs/platform-compatibility.md)",
};

/** Lengths kept below the platform's on purpose, each with its reason. */
const SHORTER_ON_PURPOSE: Record<string, string> = {
  'payment_instructions.*.reference': "128: the platform's own answers of payment-instruction/create hold at most 128",
};

function serviceFieldOf(platformPath: string, ours: ReadonlySet<string>): string | undefined {
  // The top-level ledger form's fields are tried at their place in the spec's ledgers[] (the base
  // account's form; the same Transaction), the platform's single `debt` at debts[] (the same Debt).
  const ledger = `ledgers.*.${platformPath}`;
  if (/^(current|historical)_statement_transactions\.|^last_statement_/.test(platformPath) && ours.has(ledger)) return ledger;
  if (platformPath.startsWith('debt.') && ours.has(`debts.*.${platformPath.slice(5)}`)) return `debts.*.${platformPath.slice(5)}`;
  if (ours.has(platformPath)) return platformPath;
  return undefined;
}

const ours = servicePaths();
const shared = Object.keys(PLATFORM_ACCOUNT)
  .map((p) => [p, serviceFieldOf(p, ours)] as const)
  .filter((e): e is readonly [string, string] => e[1] !== undefined);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/**
 * The example account with every platform field set (test/support/platformSample.ts), then made
 * valid where a sample value means nothing here: reference data the example knows, a prepay meter
 * for its prepay details, UK phone numbers, an ACTIVE_NEW preference naming the account's mandate.
 * Built once (filling every platform field costs more than validating the account: ~65 ms against
 * ~45 ms on the 2-core machines, and this file validates ~2,400 accounts); each test gets a copy.
 */
function base(): Json {
  return structuredClone(BASE);
}

function buildBase(): Json {
  const a = everyPlatformField(example());
  a.payment_instructions = [{ reference: 'DD-1', type: 'DIRECT_DEBIT', vendor: 'BOTTOMLINE_PTX', instruction_identifier: 'I-1' }];
  a.payment_preferences = [{ type: 'ACTIVE_NEW', ledger_identifier: 'L-1', instruction_reference_params: { instruction_identifier: 'I-1' } }];
  a.debts = [{ agency_name: 'Northgate Recoveries', start_date: '2025-02-01', aged_debt: [{ debt_amount: '120.00', due_date: '2025-01-01' }] }];
  a.dunning_path = { path_name: 'standard', start_date: '2026-12-01' };
  const point = a.supply_addresses[0].meter_points[0];
  delete point.shipper_mpid;
  point.aq_history = [{ effective_from: '2023-01-01', consumption: '12000' }];
  point.meters[0].is_prepay = true;
  point.meters[0].prepay_details = { credit_balance: '1.00', gas_debt_repayment_options: { weekly_min: '1.00', weekly_max: '2.00' } };
  a.supply_addresses[0].property_administrators = [{ given_name: 'Nuala', family_name: 'Kearney' }];
  a.unknown_occupier = false;
  // A portfolio lead has no supply address; a current transaction no billing document (the platform's refusals).
  a.is_portfolio_lead = false;
  delete a.portfolio.portfolio_settings;
  for (const l of a.ledgers) for (const t of l.current_statement_transactions ?? []) delete t.billing_document_identifier;
  // The example's PSR records each name one industry code: the sample's other one means nothing.
  for (const c of a.customers) for (const p of c.psr ?? []) for (const k of ['elec_industry_code', 'gas_industry_code']) if (p[k] === 'Sample text') delete p[k];
  // The cross-field rules of the platform's fields (docs/spec/RULES.md, "The platform's fields"):
  // the sample fills every field of the first meter point, the electricity one, so its gas fields
  // go to the gas meter point; identifiers name the account's supply and the FiT installation;
  // periods end after they start, the latest open-ended.
  const gasPoint = a.supply_addresses[0].meter_points[1];
  const move = (from: Json, to: Json, keys: string[]) => keys.forEach((k) => ((to[k] = from[k]), delete from[k]));
  move(point, gasPoint, GAS_POINT_FIELDS);
  move(point.meters[0], gasPoint.meters[0], GAS_METER_FIELDS);
  Object.assign(point.meters[0], { smart_device_id: '00-DB-12-34-56-78-90-AB', prepay_customer_reference_number: '1234 5678' });
  // The sample's removed_on makes the meter an exchanged one: its removal read and each settlement register's last billed date.
  const exchanged = point.meters[0];
  exchanged.reading_history.push({ register_id: '1', reading_date: exchanged.removed_on, reading_value: '1.0', reading_type: 'ROUTINE' });
  for (const r of exchanged.registers) r.last_billed_to_date = exchanged.removed_on;
  delete point.capacity_values[0].effective_to_date;
  delete point.configuration_periods[0].effective_to_date;
  for (const k of ['vat_exemptions', 'ccl_exemptions']) point[k][0].effective_to = '2025-04-01';
  a.account_campaigns[0].expiry_date = '2027-01-01';
  a.notes[0].unpin_at = '2026-12-01T09:00:00Z';
  a.commission_contracts[0].mpxn = point.identifier;
  a.fit.installations[0].fit_id = 'FIT00123456';
  // Fields the platform takes one at a time, or on a business account only (account/rules/platformAccountRules.ts):
  // a business account; a campaign by its name; one billing address form; adequacy changes without a
  // review date; agents' contracts without MPIDs to appoint; a delayed schedule on bills, paid in instalments adding up.
  a.account_type = 'BUSINESS';
  delete a.account_campaigns[0].slug;
  for (const k of LEGACY_BILLING) delete a[k];
  delete a.last_payment_review_date;
  for (const k of ['dc_to_appoint', 'mam_to_appoint', 'mop_to_appoint']) delete point[k];
  const schedule = a.payment_schedules[0];
  schedule.trigger = 'BILL';
  schedule.instalments = [{ ...schedule.instalments[0], amount: schedule.amount, payment_date: schedule.start_date }];
  for (const t of [...a.ledgers[0].current_statement_transactions, ...a.ledgers[0].historical_statement_transactions]) for (const item of t.line_items ?? []) item.units = ['1.00', '2.00'];
  Object.assign(a.fit.meters[0], { mpan: point.identifier, extensions: ['FIT00123456-1'] });
  return a;
}

const LEGACY_BILLING = ['billing_address1', 'billing_address2', 'billing_address3', 'billing_address4', 'billing_address5', 'billing_postcode', 'billing_delivery_point_identifier'];

/** The platform's gas-only fields of a meter point and of a meter (account/rules/platformMeters.ts). */
const GAS_POINT_FIELDS = ['ldz', 'mam_to_appoint'];
const GAS_METER_FIELDS = ['units_of_measure', 'last_billed_to_date'];
const BASE: Json = buildBase();

/** Sets `value` at `path` (`*`: the first item), failing when the account has no such place; its concrete attr. */
function setAt(account: Json, path: string, value: unknown): string {
  const parts = path.split('.');
  let node = account;
  const concrete: string[] = [];
  for (const part of parts.slice(0, -1)) {
    const next = part === '*' ? node?.[0] : node?.[part];
    if (next === undefined || next === null || typeof next !== 'object') throw new Error(`the base account has nothing at ${concrete.concat(part).join('.')} (for ${path}): add it to base()`);
    concrete.push(part === '*' ? '0' : part);
    node = next;
  }
  node[parts[parts.length - 1]!] = value;
  return [...concrete, parts[parts.length - 1]!].join('.');
}

/**
 * What a value needs of its neighbours to mean something: a preference naming the vendor's mandate
 * is ACTIVE_EXISTING; a refusal reason belongs to a refusal. Applied before the value is set.
 */
const CONTEXT: Record<string, (a: Json) => void> = {
  'payment_preferences.*.instruction_reference_params.vendor_name': (a) => {
    a.payment_preferences[0] = { type: 'ACTIVE_EXISTING', ledger_identifier: 'L-1', instruction_reference_params: { vendor_reference: 'seti_1' } };
  },
  'payment_preferences.*.type': (a) => delete a.payment_preferences[0].instruction_reference_params,
  // The legacy billing address replaces the object; a review date the adequacy changes.
  ...Object.fromEntries(LEGACY_BILLING.map((k) => [k, (a: Json) => delete a.billing_address])),
  last_payment_review_date: (a) => delete a.payment_adequacy_changes,
  'supply_addresses.*.meter_points.*.smart_refusal_interest.type': (a) => delete a.supply_addresses[0].meter_points[0].smart_refusal_interest.refusal_reason,
  // A gas field is tried on the gas meter point: put it first (field_not_for_supply_type otherwise).
  ...Object.fromEntries(
    [...GAS_POINT_FIELDS.map((k) => `supply_addresses.*.meter_points.*.${k}`), ...GAS_METER_FIELDS.map((k) => `supply_addresses.*.meter_points.*.meters.*.${k}`)].map((p) => [
      p,
      (a: Json) => a.supply_addresses[0].meter_points.reverse(),
    ]),
  ),
};

/**
 * Campaign slugs are the operator's reference data (`campaign_not_found` otherwise, as on the
 * platform, whose document enumerates its tenant's campaigns): the platform's are loaded here as an
 * operator migrating that tenant would load them.
 */
const REFERENCE = buildReferenceData([
  ...DEFAULT_REFERENCE_DATA_ROWS,
  ...platformValues('account_campaigns.*.slug').filter((v) => v !== '').map((code) => ({ kind: 'campaign' as const, code })),
]);
const withPlatformCampaigns = validator({ referenceData: () => REFERENCE });

/**
 * The errors of a valid account once `value` is set at `path` (into an array field as its one item)
 * that are the value's own: at its field or below. A rule that the changed value makes another field
 * break (a later closing date and the transactions after it) is that field's rule.
 */
async function errorsWith(path: string, value: unknown, isArray = false, only?: ReadonlySet<string>): Promise<string[]> {
  const account = base();
  CONTEXT[path]?.(account);
  const at = setAt(account, path, isArray ? [value] : value);
  const errors = errorsOf(await withPlatformCampaigns.validate(account, { mode: 'validate' }));
  return errors.filter((e) => {
    const attr = e.slice(e.indexOf('@') + 1);
    return (attr === at || attr.startsWith(`${at}.`)) && (!only || only.has(e.slice(0, e.indexOf('@'))));
  });
}

describe('the platform values of the shared fields', () => {
  it('the description is the whole platform Account and the base account is valid', async () => {
    expect(Object.keys(PLATFORM_ACCOUNT)).toHaveLength(642);
    expect(shared.length).toBeGreaterThan(170);
    expect(errorsOf(await check(base()))).toEqual([]);
  });

  const withValues = shared.filter(([p]) => platformValues(p).length > 0 && !FIELDS_REFUSED_ON_PURPOSE[p]);
  it('lists value sets on the fields the issue names', () => {
    const names = withValues.map(([p]) => p);
    for (const p of ['sales_channel', 'account_type', 'current_statement_transactions.*.payment_type', 'payment_schedules.*.means', 'supply_addresses.*.meter_points.*.meters.*.reading_history.*.reading_type', 'warm_home_discount.*.group', 'account_campaigns.*.slug']) {
      expect(names).toContain(p);
    }
  });

  it.each(withValues)('every value the platform lists for %s is accepted', async (platformPath, path) => {
    const isArray = PLATFORM_ACCOUNT[platformPath]!.type.includes('array');
    const refused: string[] = [];
    for (const value of platformValues(platformPath)) {
      if (REFUSED_ON_PURPOSE[`${platformPath}=${value}`]) continue;
      const errors = await errorsWith(path, value, isArray);
      if (errors.length > 0) refused.push(`${JSON.stringify(value)}: ${errors.join(', ')}`);
    }
    expect(refused).toEqual([]);
  });

  // A format or a length is the shape's: the rules of the field's content (a postcode, a phone number,
  // reference data, dates in order) still apply to a value of that format or length.
  const SHAPE = new Set(['invalid', 'invalid_date', 'invalid_datetime', 'invalid_decimal', 'max_length', 'blank', 'invalid_choice', 'unknown_field', 'null']);
  const SAMPLE: Record<string, string> = { date: '2024-03-01', 'date-time': '2024-03-01T10:00:00+01:00', decimal: '12.50' };
  const withFormats = shared.filter(([p]) => (PLATFORM_ACCOUNT[p]!.format ?? []).some((f) => SAMPLE[f] !== undefined));
  it.each(withFormats)('a value in the format the platform documents for %s is accepted', async (platformPath, path) => {
    for (const format of PLATFORM_ACCOUNT[platformPath]!.format!) {
      if (SAMPLE[format] === undefined) continue;
      // Within the field's own pattern, when it has one (a VAT rate's decimal is at most 9.99).
      const pattern = PLATFORM_ACCOUNT[platformPath]!.pattern?.[0];
      const sample = pattern && !new RegExp(pattern).test(SAMPLE[format]) ? '1.25' : SAMPLE[format];
      expect([format, await errorsWith(path, sample, false, SHAPE)]).toEqual([format, []]);
    }
  });

  const withLengths = shared.filter(([p]) => {
    const f = PLATFORM_ACCOUNT[p]!;
    return f.maxLength !== undefined && f.type.includes('string') && !f.enum && !f.format && !SHORTER_ON_PURPOSE[p];
  });
  it.each(withLengths)('a value as long as the platform allows for %s is accepted', async (platformPath, path) => {
    expect(await errorsWith(path, 'A'.repeat(PLATFORM_ACCOUNT[platformPath]!.maxLength!), false, SHAPE)).toEqual([]);
  });

  it('what is refused or shorter on purpose is still what the platform documents', () => {
    for (const key of Object.keys(REFUSED_ON_PURPOSE)) {
      const [p, v] = key.split('=') as [string, string];
      expect(platformValues(p)).toContain(v);
    }
    for (const p of Object.keys(SHORTER_ON_PURPOSE)) expect(PLATFORM_ACCOUNT[p]!.maxLength).toBeDefined();
  });
});
