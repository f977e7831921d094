import { PLATFORM_ACCOUNT } from '../../../account/platformAccount';
import { ARRAY_CAP, TEXT_CAP, platformChildren, platformSchema } from '../../../account/platformSchema';
import { TABLE_SPECS } from '../../../db/stores/accountTables';
import { platformTables } from '../../../db/stores/platformTables';
import { ACCOUNT_TABLES } from '../../../db/stores/accountTables';
import fs from 'node:fs';
import path from 'node:path';
import { everyPlatformField, platformSample } from '../../support/platformSample';
import { check, errorsOf, example } from './helpers';

/**
 * The schema and the storage built from the platform's Account as data (account/platformSchema.ts,
 * db/stores/platformTables.ts): the document's constraints are the rules, hostile values stay
 * bounded, and every table the description asks for has a name PostgreSQL keeps whole.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
const MP = 'supply_addresses.0.meter_points.0';

async function errorsWith(mutate: (a: Json) => void): Promise<string[]> {
  const a = example();
  mutate(a);
  return errorsOf(await check(a));
}

describe('the platform fields built from the description', () => {
  it.each<[string, (a: Json) => void, string[]]>([
    ['a value outside the value set is invalid_choice', (a) => (a.supply_addresses[0].meter_points[0].measurement_class = 'Z'), [`invalid_choice@${MP}.measurement_class`]],
    ['a required sub-field of a platform object is required', (a) => (a.complaints = [{ complainant_name: 'A', complainant_email: 'a@example.org', created_at: '2026-01-01T00:00:00Z', has_chsr_letter_been_sent: false, has_eight_week_letter_been_sent: false, subtype_of_complaint: 'X', complaint_contacts: [] }]), ['required@complaints.0.type_of_complaint']],
    ['a field inside a platform object that neither document has is unknown_field', (a) => (a.supply_addresses[0].meter_points[0].agents = { mop_contract: { agent: 'LOND' } }), [`unknown_field@${MP}.agents.mop_contract.agent`]],
    ['a length over the document\'s is max_length', (a) => (a.supply_addresses[0].meter_points[0].configuration_periods = [{ effective_from_date: '2022-11-01', gsp: '_CX' }]), [`max_length@${MP}.configuration_periods.0.gsp`]],
    ['a decimal outside the document\'s pattern is invalid', (a) => (a.supply_addresses[0].meter_points[0].vat_exemptions = [{ effective_from: '2026-01-01', rate: '12.5' }]), [`invalid@${MP}.vat_exemptions.0.rate`]],
    ['a decimal that is not one is invalid_decimal', (a) => (a.payment_promises = [{ amount: '1e3', payment_date: '2026-12-01' }]), ['invalid@payment_promises.0.amount', 'invalid_decimal@payment_promises.0.amount']],
    ['an e-mail address that is not one is invalid_email', (a) => (a.customers[0].contact_emails = ['not-an-address']), ['invalid_email@customers.0.contact_emails.0']],
    ['a time of day that is not one is invalid_time', (a) => (a.supply_addresses[0].meter_points[0].agreements[0].bespoke_tariff_rates = [{ standing_charge: '45.12', unit_rate: '24.5', registers: [{ unit_rate: '24.5', start_time: '25:00' }] }]), [`invalid_time@${MP}.agreements.0.bespoke_tariff_rates.0.registers.0.start_time`]],
    ['an unbounded integer beyond 2^53 is max_value', (a) => {
        delete a.last_payment_review_date;
        a.payment_adequacy_changes = [{ ...adequacy(), current_balance: 2 ** 60 }];
      }, ['max_value@payment_adequacy_changes.0.current_balance']],
    ['a nullable platform field takes null', (a) => (a.customers[0].credit_score = null), []],
    ['a field of no type takes any JSON value', (a) => (a.consents = [{ type: { any: ['json'] }, value: 'ACCEPTED' }]), []],
  ])('%s', async (_name, mutate, expected) => {
    expect(await errorsWith(mutate)).toEqual(expected);
  });

  it('bounds every array of the platform without a documented bound', () => {
    const s = platformSchema('complaints') as Json;
    expect(s.maxItems).toBe(ARRAY_CAP);
  });

  // The caps at their boundary (the fuzz run leaves these cases to this test: test/fuzz/schemathesis.toml).
  const complaint = (subtype_of_complaint = 'X') => ({ complainant_name: 'A', complainant_email: 'a@example.org', created_at: '2026-01-01T00:00:00Z', has_chsr_letter_been_sent: false, has_eight_week_letter_been_sent: false, type_of_complaint: 'BILLING', subtype_of_complaint, complaint_contacts: [] });
  it.each([
    [`${ARRAY_CAP} items of an unbounded list are accepted`, ARRAY_CAP, []],
    [`${ARRAY_CAP + 1} are max_length`, ARRAY_CAP + 1, ['max_length@complaints']],
  ])('%s', async (_name, n, expected) => {
    const one = complaint();
    expect(await errorsWith((a) => (a.complaints = Array.from({ length: n }, () => one)))).toEqual(expected);
  });

  it.each([
    [`${TEXT_CAP} characters of an unbounded text are accepted`, TEXT_CAP, []],
    [`${TEXT_CAP + 1} are max_length`, TEXT_CAP + 1, ['max_length@complaints.0.subtype_of_complaint']],
  ])('%s', async (_name, n, expected) => {
    expect(await errorsWith((a) => (a.complaints = [complaint('x'.repeat(n))]))).toEqual(expected);
  });

  it('stores every platform field: each table named within PostgreSQL\'s limit, every generated column typed', () => {
    const p = platformTables(ACCOUNT_TABLES);
    expect(Object.keys(p.tables)).toHaveLength(62);
    for (const name of Object.keys(p.tables)) expect(name.length).toBeLessThanOrEqual(50);
    for (const [, spec] of Object.entries(p.tables)) expect(Object.keys(TABLE_SPECS)).toContain(spec.parent ?? 'accounts');
    // Every object of the description with fields is a table of its own, or the object of a hand-described one.
    const objects = Object.keys(PLATFORM_ACCOUNT).filter((k) => ['object', 'array'].includes(PLATFORM_ACCOUNT[k]!.type[0]!) && platformChildren(k).size > 0);
    const tablePaths = new Set(Object.values(p.tables).map((t) => t.platformPath));
    const handPaths = ['payment_preferences.*.instruction_reference_params', 'supply_addresses.*.meter_points.*.meters.*.prepay_details.gas_debt_repayment_options'];
    const unplaced = objects.filter((k) => !tablePaths.has(k) && !handPaths.includes(k) && !/^(current|historical)_statement_transactions$/.test(k));
    // The rest are objects of the hand-described tables (customers, meters…).
    expect(unplaced.every((k) => !k.split('.').some((seg, i, all) => i > 0 && tablePaths.has(all.slice(0, i).join('.'))))).toBe(true);
  });

  it('accepts a spec account carrying every platform field (sample values)', async () => {
    const a = everyPlatformField(example());
    const shape = errorsOf(await check(a)).filter((e) => /^(unknown_field|required|invalid|invalid_choice|max_length|invalid_date|invalid_datetime|invalid_decimal|invalid_email|invalid_time|min_value|max_value|null|blank)@/.test(e));
    expect(shape.filter((e) => !e.includes('property_administrators') && !e.includes('psr.0.gas_industry_code'))).toEqual([]);
  });
});

function adequacy(): Json {
  return {
    applied_at: '2026-01-01T00:00:00Z', average_monthly_charge: 1, average_monthly_elec_charge: 1, average_monthly_gas_charge: 1, balance_adjustment: 1,
    created_at: '2026-01-01T00:00:00Z', current_balance: 1, existing_direct_debit_payment: 1, new_direct_debit: 1, target_balance: 1,
  };
}

describe("each field of the platform's Account added to a valid account, one at a time", () => {
  // The codes of the rules: docs/spec/RULES.md, and docs/api.md for the platform's own account fields.
  const rules = ['docs/spec/RULES.md', 'docs/api.md'].map((f) => fs.readFileSync(path.join(__dirname, '../../..', f), 'utf8')).join('\n');
  const documented = (code: string) => rules.includes(`\`${code}\``);
  // Every platform field the example account does not have, where a payload would first send it
  // (its parent is in the example: `*` its first item), set to a sample with every sub-field.
  const base = example();
  const at = (a: Json, parts: string[]) => parts.reduce((n: Json, p) => (n === undefined ? undefined : p === '*' ? n[0] : n[p]), a);
  const firsts = Object.keys(PLATFORM_ACCOUNT).filter((p) => {
    const parts = p.split('.');
    return at(base, parts) === undefined && (parts.length === 1 || at(base, parts.slice(0, -1)) !== undefined);
  });

  it('finds the fields to try', () => {
    expect(firsts.length).toBeGreaterThan(120);
  });

  it.each(firsts)('%s is accepted, or refused only by its own documented rule', async (p) => {
    const a = example();
    const parts = p.split('.');
    at(a, parts.slice(0, -1))[parts[parts.length - 1]!] = platformSample(p);
    const errors = errorsOf(await check(a));
    expect(errors.filter((e) => e.startsWith('unknown_field@') || !documented(e.slice(0, e.indexOf('@'))))).toEqual([]);
  });
});
