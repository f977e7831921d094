import { checkMisc } from '../../../account/rules/misc';
import { checkPlatformFields } from '../../../account/rules/platform';
import { checkReferenceData } from '../../../account/rules/reference';
import { installationOf } from '../../../account/rules/fit';
import type { Mutate } from './mutate';
import { ruleErrorsAfter } from './ruleContext';

const errorsAfter = (mutate: Mutate) => ruleErrorsAfter(checkPlatformFields, mutate);

const contract = (mpxn: string) => ({ affiliate_organisation_name: 'Broker Ltd', effective_from: '2025-01-01', effective_to: '2026-01-01', mpxn, status: 'PAYABLE' });

describe('commission contracts', () => {
  it.each<[string, Mutate, string[]]>([
    ['a contract on the account\'s MPAN validates', (a) => (a.commission_contracts = [contract('2300111122226')]), []],
    ['a contract on the account\'s MPRN validates', (a) => (a.commission_contracts = [contract('7382190405')]), []],
    ['a valid MPAN of another supply is commission_contract_mpxn_not_found', (a) => (a.commission_contracts = [contract('1200000000011')]), ['commission_contract_mpxn_not_found@commission_contracts.0.mpxn']],
    ['an mpxn that is neither MPAN nor MPRN is invalid_supply_point_identifier', (a) => (a.commission_contracts = [contract('2300111122227')]), ['invalid_supply_point_identifier@commission_contracts.0.mpxn']],
  ])('%s', (_name, mutate, expected) => {
    expect(errorsAfter(mutate)).toEqual(expected);
  });

  it('takes the identifier of a meter point with a shape error: it still names the supply', () => {
    const mutate: Mutate = (a) => {
      a.commission_contracts = [contract('7382190405')];
      a.supply_addresses[0].meter_points[1].mpid = 42;
    };
    expect(ruleErrorsAfter(checkPlatformFields, mutate, ['supply_addresses.0.meter_points.1.mpid'])).toEqual([]);
  });
});

const agreement = (scheme: string, start: string, end?: string, periods?: object[]) => ({
  scheme,
  amount: '5.00',
  interval: 'MONTHLY',
  active_period_start_date: start,
  ...(end === undefined ? {} : { active_period_end_date: end }),
  ...(periods === undefined ? {} : { periods }),
});

describe('contribution scheme agreements', () => {
  it.each<[string, Mutate, string[]]>([
    [
      'periods within the active period, each starting the day the previous ends, validate',
      (a) => (a.contribution_agreements = [agreement('TREES', '2025-01-01', '2025-12-31', [{ start_date: '2025-01-01', end_date: '2025-02-01' }, { start_date: '2025-02-01', end_date: '2025-03-01' }])]),
      [],
    ],
    [
      'a period starting before the active period is invalid_contribution_period_start_date',
      (a) => (a.contribution_agreements = [agreement('TREES', '2025-01-01', undefined, [{ start_date: '2024-12-01', end_date: '2025-01-01' }])]),
      ['invalid_contribution_period_start_date@contribution_agreements.0.periods.0.start_date'],
    ],
    [
      'a period ending after the active period is invalid_contribution_period_end_date',
      (a) => (a.contribution_agreements = [agreement('TREES', '2025-01-01', '2025-06-30', [{ start_date: '2025-06-01', end_date: '2025-07-01' }])]),
      ['invalid_contribution_period_end_date@contribution_agreements.0.periods.0.end_date'],
    ],
    [
      'overlapping periods are overlapping_contribution_periods',
      (a) => (a.contribution_agreements = [agreement('TREES', '2025-01-01', undefined, [{ start_date: '2025-01-01', end_date: '2025-02-15' }, { start_date: '2025-02-01', end_date: '2025-03-01' }])]),
      ['overlapping_contribution_periods@contribution_agreements.0.periods.1.start_date'],
    ],
    [
      'two agreements of one scheme overlapping are overlapping_contribution_agreements',
      (a) => (a.contribution_agreements = [agreement('TREES', '2025-01-01', '2025-06-30'), agreement('TREES', '2025-06-30')]),
      ['overlapping_contribution_agreements@contribution_agreements.1.active_period_start_date'],
    ],
    [
      'an agreement after an open-ended one of the same scheme is overlapping_contribution_agreements',
      (a) => (a.contribution_agreements = [agreement('TREES', '2026-01-01'), agreement('TREES', '2025-01-01')]),
      ['overlapping_contribution_agreements@contribution_agreements.0.active_period_start_date'],
    ],
    ['consecutive agreements of one scheme validate', (a) => (a.contribution_agreements = [agreement('TREES', '2025-01-01', '2025-06-30'), agreement('TREES', '2025-07-01')]), []],
    ['agreements of two schemes may overlap', (a) => (a.contribution_agreements = [agreement('TREES', '2025-01-01'), agreement('SOLAR', '2025-01-01')]), []],
  ])('%s', (_name, mutate, expected) => {
    expect(errorsAfter(mutate)).toEqual(expected);
  });
});

const deposit = (fields: object) => ({ deposit_amount: '150.00', reason: 'Credit check', ...fields });

describe('deposit agreements', () => {
  it.each<[string, Mutate, string[]]>([
    ['a fulfilled deposit with interest up to a later day validates', (a) => (a.deposit_agreements = [deposit({ accepted_at: '2025-03-01T10:00:00Z', fulfilled_at: '2025-03-10T12:00:00Z', last_interest_date: '2026-03-10' })]), []],
    ['a last interest date on an unfulfilled deposit is last_interest_date_not_allowed', (a) => (a.deposit_agreements = [deposit({ accepted_at: '2025-03-01T10:00:00Z', last_interest_date: '2026-03-10' })]), ['last_interest_date_not_allowed@deposit_agreements.0.last_interest_date']],
    ['interest to the London day of fulfilment validates (GMT)', (a) => (a.deposit_agreements = [deposit({ fulfilled_at: '2026-03-10T23:30:00Z', last_interest_date: '2026-03-10' })]), []],
    [
      'fulfilled on a later London day than the last interest is fulfilled_at_greater_than_last_interest_date (BST)',
      (a) => (a.deposit_agreements = [deposit({ fulfilled_at: '2026-06-10T23:30:00Z', last_interest_date: '2026-06-10' })]),
      ['fulfilled_at_greater_than_last_interest_date@deposit_agreements.0.last_interest_date'],
    ],
  ])('%s', (_name, mutate, expected) => {
    expect(errorsAfter(mutate)).toEqual(expected);
  });
});

const payment = (date: string, total: number, components: [string, number][]) => ({
  payment_date: date,
  total_amount: total,
  amount_components: components.map(([component_type, amount]) => ({ component_type, amount })),
});
const plan = (payments: object[], acceptedAt = '2026-03-01T10:00:00Z') => ({ accepted_at: acceptedAt, schedule_means: 'DD', strategy_name: 'DEBT_PLAN', payments });

describe('payment plans', () => {
  it.each<[string, Mutate, string[]]>([
    [
      'components adding up to each total validate; an empty list is not broken down',
      (a) => (a.payment_plans = [plan([payment('2026-04-01', 9500, [['ENERGY', 8000], ['DEBT', 1500]]), payment('2026-05-01', 9500, [])])]),
      [],
    ],
    [
      'components not adding up are payment_plan_payment_components_do_not_sum_to_total',
      (a) => (a.payment_plans = [plan([payment('2026-04-01', 9500, [['ENERGY', 8000], ['DEBT', 1000]])])]),
      ['payment_plan_payment_components_do_not_sum_to_total@payment_plans.0.payments.0.total_amount'],
    ],
    [
      'one component type twice on a day is duplicate_payment_component_combinations',
      (a) => (a.payment_plans = [plan([payment('2026-04-01', 8000, [['ENERGY', 8000]]), payment('2026-04-01', 1500, [['ENERGY', 1500]])])]),
      ['duplicate_payment_component_combinations@payment_plans.0.payments.1.amount_components.0.component_type'],
    ],
    ['one component type on two days validates', (a) => (a.payment_plans = [plan([payment('2026-04-01', 8000, [['ENERGY', 8000]]), payment('2026-05-01', 8000, [['ENERGY', 8000]])])]), []],
    [
      'a payment before the London day of acceptance is payment_plan_payment_before_acceptance (BST)',
      (a) => (a.payment_plans = [plan([payment('2026-03-31', 100, []), payment('2026-04-01', 100, [])], '2026-03-31T23:30:00Z')]),
      ['payment_plan_payment_before_acceptance@payment_plans.0.payments.0.payment_date'],
    ],
    ['a payment on the day of acceptance validates', (a) => (a.payment_plans = [plan([payment('2026-03-01', 100, [])])]), []],
  ])('%s', (_name, mutate, expected) => {
    expect(errorsAfter(mutate)).toEqual(expected);
  });
});

const fitMeter = (fields: object) => ({
  type: 'GENERATION',
  serial_number: 'S12345',
  last_billed_to_date: '2026-10-31',
  transfer_reading: { reading_date: '2026-10-31', reading_value: '1234.5' },
  extensions: ['FIT00123456-1'],
  ...fields,
});
const fit = (fields: object) => ({ payment_method: 'CHEQUE', installations: [{ fit_id: 'FIT00123456' }], meters: [fitMeter({})], ...fields });

describe('Feed-in Tariff', () => {
  it.each<[string, Mutate, string[]]>([
    ['a generation meter on an installation validates', (a) => (a.fit = fit({})), []],
    ['BACS with the vendor and mandate validates', (a) => (a.fit = fit({ payment_method: 'BACS', vendor_name: 'STRIPE', instruction_reference: 'MANDATE-1' })), []],
    [
      'BACS without the vendor and mandate is payment_instruction_details_incomplete at each',
      (a) => (a.fit = fit({ payment_method: 'BACS' })),
      ['payment_instruction_details_incomplete@fit.vendor_name', 'payment_instruction_details_incomplete@fit.instruction_reference'],
    ],
    ['a supply meter with its MPAN validates', (a) => (a.fit = fit({ meters: [fitMeter({ type: 'SUPPLY', mpan: '2300111122226' })] })), []],
    ['a supply meter without an MPAN is required', (a) => (a.fit = fit({ meters: [fitMeter({ type: 'SUPPLY' })] })), ['required@fit.meters.0.mpan']],
    ['an export meter without an MPAN validates', (a) => (a.fit = fit({ meters: [fitMeter({ type: 'EXPORT' })] })), []],
    ['a wrong MPAN is invalid_supply_point_identifier', (a) => (a.fit = fit({ meters: [fitMeter({ type: 'EXPORT', mpan: '2300111122227' })] })), ['invalid_supply_point_identifier@fit.meters.0.mpan']],
    [
      'an extension of no installation of the payload is fit_meter_installation_not_found',
      (a) => (a.fit = fit({ meters: [fitMeter({ extensions: ['FIT00123456-1', 'FIT00999999-1'] })] })),
      ['fit_meter_installation_not_found@fit.meters.0.extensions.1'],
    ],
    ['an extension without its number is fit_meter_installation_not_found', (a) => (a.fit = fit({ meters: [fitMeter({ extensions: ['FIT00123456'] })] })), ['fit_meter_installation_not_found@fit.meters.0.extensions.0']],
    [
      'a meter shared by two installations validates',
      (a) => (a.fit = fit({ installations: [{ fit_id: 'FIT00123456' }, { fit_id: 'FIT00654321' }], meters: [fitMeter({ extensions: ['FIT00123456-1', 'FIT00654321-2'] })] })),
      [],
    ],
  ])('%s', (_name, mutate, expected) => {
    expect(errorsAfter(mutate)).toEqual(expected);
  });

  it('reads the installation a reference names, hyphens in the fit_id included', () => {
    expect(installationOf('FIT00123456-1')).toBe('FIT00123456');
    expect(installationOf('FIT-00123456-12')).toBe('FIT-00123456');
    expect(installationOf('FIT00123456')).toBeUndefined();
    expect(installationOf('FIT00123456-')).toBeUndefined();
    expect(installationOf('-1')).toBeUndefined();
  });
});

describe('debt and debts', () => {
  it('both forms at once are debt_and_debts_are_defined', () => {
    expect(errorsAfter((a) => Object.assign(a, { debt: { is_insolvent: false }, debts: [] }))).toEqual(['debt_and_debts_are_defined@debt']);
    expect(errorsAfter((a) => (a.debt = { is_insolvent: false }))).toEqual([]);
  });

  it('holds the single debt to the agency rules of debts[]', () => {
    expect(ruleErrorsAfter((ctx) => checkMisc(ctx, '/srv/documents/demo'), (a) => (a.debt = { start_date: '2026-01-01' }))).toEqual(['debt_collection_agency_name_required@debt.agency_name']);
    expect(ruleErrorsAfter(checkReferenceData, (a) => (a.debt = { agency_name: 'Nobody & Co', start_date: '2026-01-01' }))).toEqual(['debt_collection_agency_does_not_exist@debt.agency_name']);
  });
});
