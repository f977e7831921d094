import { ELEC, GAS } from './helpers';
import { elec, elecMeter, errorsAfter, gas, gasMeter, type Mutate } from './mutate';

/**
 * The rules of the platform's fields through the whole validator (shape check, then the rules):
 * each code once on the example account, beside a valid use of the same fields. The cases of each
 * rule are in platformMeters, platformPeriods, platformRecords and ledgerForms (.test.ts).
 */
const EM = `${ELEC}.meters.0`;
const then = (...steps: Mutate[]): Mutate => (a) => steps.forEach((step) => step(a));
const toTopLevel: Mutate = (a) => {
  const { ledger_balance: _balance, ...statement } = a.ledgers[0];
  delete a.ledgers;
  Object.assign(a, statement);
};
const fit = (fields: object) => ({
  payment_method: 'CHEQUE',
  installations: [{ fit_id: 'FIT00123456' }],
  meters: [{ type: 'SUPPLY', mpan: '2300111122226', serial_number: 'S1', last_billed_to_date: '2026-10-31', transfer_reading: { reading_date: '2026-10-31', reading_value: '1234.5' }, extensions: ['FIT00123456-1'] }],
  ...fields,
});
const plan = (total: number, components: [string, number][], date = '2026-12-01') => ({
  accepted_at: '2026-11-01T10:00:00Z',
  schedule_means: 'DD',
  strategy_name: 'DEBT_PLAN',
  payments: [{ payment_date: date, total_amount: total, amount_components: components.map(([component_type, amount]) => ({ component_type, amount })) }],
});
const agreement = (start: string, end: string | undefined, periods: object[] = []) => ({ scheme: 'TREES', amount: '5.00', interval: 'MONTHLY', active_period_start_date: start, active_period_end_date: end, periods });

describe('the rules of the platform\'s fields, through the validator', () => {
  it.each<[string, Mutate, string[]]>([
    [
      'a gas meter in imperial units, an export meter point and a commissioned smart meter validate',
      (a) => {
        gasMeter(a).units_of_measure = 'SCFH';
        elec(a).export_type = 'IMPORT_EXPORT';
        Object.assign(elecMeter(a), { smart_type: 'SMETS2', smart_device_id: '00-DB-12-34-56-78-90-AB', smart_commissioned_on: '2020-03-01' });
      },
      [],
    ],
    ['units_of_measure on an electricity meter', (a) => (elecMeter(a).units_of_measure = 'SCMH'), [`field_not_for_supply_type@${EM}.units_of_measure`]],
    ['export_type on a gas meter point', (a) => (gas(a).export_type = 'EXPORT_ONLY'), [`field_not_for_supply_type@${GAS}.export_type`]],
    ['a device id on a meter that is not smart', (a) => Object.assign(gasMeter(a), { smart_type: 'NONE', smart_device_id: '00DB1234567890AB' }), [`smart_details_provided_for_non_smart_meter@${GAS}.meters.0.smart_device_id`]],
    ['a device id of 15 digits', (a) => (elecMeter(a).smart_device_id = '00DB1234567890A'), [`invalid_smart_device_id@${EM}.smart_device_id`]],
    ['a commissioning date tomorrow', (a) => (elecMeter(a).smart_commissioned_on = '2026-11-22'), [`future_smart_meter_commission_date@${EM}.smart_commissioned_on`]],
    ['commissioned before installed', (a) => (elecMeter(a).smart_commissioned_on = '2019-01-01'), [`smart_commissioned_before_installed@${EM}.smart_commissioned_on`]],
    ['removed before installed', (a) => (elecMeter(a).removed_on = '2019-01-01'), [
      `start_date_later_than_end_date@${EM}.removed_on`,
      `no_reading_on_removed_on@${EM}.removed_on`,
      `no_last_billed_to_date_on_exchanged_meter@${EM}.registers.0.last_billed_to_date`,
      `no_last_billed_to_date_on_exchanged_meter@${EM}.registers.1.last_billed_to_date`,
    ]],
    ['a prepay reference on a credit meter', (a) => (gasMeter(a).prepay_customer_reference_number = '12345'), [`prepay_details_on_non_prepay_meter@${GAS}.meters.0.prepay_customer_reference_number`]],
    [
      'an electricity prepay reference with letters',
      (a) => Object.assign(elecMeter(a), { is_prepay: true, prepay_customer_reference_number: 'PP-1' }),
      [`invalid_prepay_customer_reference_number@${EM}.prepay_customer_reference_number`],
    ],
    [
      'consecutive configuration periods, the latest open, validate',
      (a) => (elec(a).configuration_periods = [{ effective_from_date: '2022-11-01', effective_to_date: '2024-04-01', measurement_class: 'A' }, { effective_from_date: '2024-04-01', measurement_class: 'A' }]),
      [],
    ],
    [
      'overlapping configuration periods',
      (a) => (elec(a).configuration_periods = [{ effective_from_date: '2022-11-01', effective_to_date: '2024-04-01' }, { effective_from_date: '2024-03-01' }]),
      [`gaps_or_overlaps_in_periods@${ELEC}.configuration_periods.1.effective_from_date`],
    ],
    ['a capacity value of no length', (a) => (elec(a).capacity_values = [{ effective_from_date: '2024-01-01', effective_to_date: '2024-01-01', value: '69.00' }]), [`zero_length_periods@${ELEC}.capacity_values.0.effective_to_date`]],
    ['a configuration period starting tomorrow', (a) => (elec(a).configuration_periods = [{ effective_from_date: '2026-11-22' }]), [`configuration_period_starts_in_future@${ELEC}.configuration_periods.0.effective_from_date`]],
    [
      'a latest configuration period that ends',
      (a) => (elec(a).configuration_periods = [{ effective_from_date: '2022-11-01', effective_to_date: '2025-01-01' }]),
      [`latest_configuration_period_not_open_ended@${ELEC}.configuration_periods.0.effective_to_date`],
    ],
    ['a VAT exemption ending the day it starts', (a) => (a.account_type = 'BUSINESS', elec(a).vat_exemptions = [{ effective_from: '2024-01-01', effective_to: '2024-01-01', rate: '0.05' }]), [`start_date_same_as_end_date@${ELEC}.vat_exemptions.0.effective_to`]],
    [
      'two open-ended CCL exemptions',
      (a) => (a.account_type = 'BUSINESS', elec(a).ccl_exemptions = [{ effective_from: '2024-01-01', rate: '1.00' }, { effective_from: '2025-01-01', rate: '1.00' }]),
      [`multiple_open_ended_tax_exemptions@${ELEC}.ccl_exemptions.1`],
    ],
    [
      'overlapping VAT exemptions',
      (a) => (a.account_type = 'BUSINESS', elec(a).vat_exemptions = [{ effective_from: '2024-01-01', effective_to: '2025-01-01', rate: '0.05' }, { effective_from: '2024-06-01', rate: '0.05' }]),
      [`overlapping_effective_dates_for_tax_exemptions@${ELEC}.vat_exemptions.1.effective_from`],
    ],
    [
      'a property administrator leaving before arriving',
      (a) => (a.supply_addresses[0].property_administrators = [{ given_name: 'Sam', family_name: 'Lee', effective_from: '2024-01-01T09:00:00Z', effective_to: '2023-01-01T09:00:00Z' }]),
      ['start_date_later_than_end_date@supply_addresses.0.property_administrators.0.effective_to'],
    ],
    ['a note unpinned before written', (a) => (a.notes[0].unpin_at = '2026-01-01T00:00:00Z'), ['note_unpin_at_earlier_than_creation_date@notes.0.unpin_at']],
    [
      'a commission contract on the account\'s MPAN validates',
      (a) => (a.commission_contracts = [{ affiliate_organisation_name: 'Broker Ltd', effective_from: '2025-01-01', effective_to: '2026-01-01', mpxn: '2300111122226', status: 'PAID' }]),
      [],
    ],
    [
      'a commission contract on another supply',
      (a) => (a.commission_contracts = [{ affiliate_organisation_name: 'Broker Ltd', effective_from: '2025-01-01', effective_to: '2026-01-01', mpxn: '1200000000011', status: 'PAID' }]),
      ['commission_contract_mpxn_not_found@commission_contracts.0.mpxn'],
    ],
    ['a contribution period before its agreement', (a) => (a.contribution_agreements = [agreement('2025-01-01', undefined, [{ start_date: '2024-12-01', end_date: '2025-01-01' }])]), ['invalid_contribution_period_start_date@contribution_agreements.0.periods.0.start_date']],
    ['a contribution period after its agreement', (a) => (a.contribution_agreements = [agreement('2025-01-01', '2025-01-31', [{ start_date: '2025-01-01', end_date: '2025-02-01' }])]), ['invalid_contribution_period_end_date@contribution_agreements.0.periods.0.end_date']],
    [
      'overlapping contribution periods',
      (a) => (a.contribution_agreements = [agreement('2025-01-01', undefined, [{ start_date: '2025-01-01', end_date: '2025-02-15' }, { start_date: '2025-02-01', end_date: '2025-03-01' }])]),
      ['overlapping_contribution_periods@contribution_agreements.0.periods.1.start_date'],
    ],
    ['overlapping agreements of one scheme', (a) => (a.contribution_agreements = [agreement('2025-01-01', undefined), agreement('2025-06-01', undefined)]), ['overlapping_contribution_agreements@contribution_agreements.1.active_period_start_date']],
    ['interest on an unfulfilled deposit', (a) => (a.deposit_agreements = [{ deposit_amount: '150.00', reason: 'Credit check', last_interest_date: '2026-01-01' }]), ['last_interest_date_not_allowed@deposit_agreements.0.last_interest_date']],
    [
      'interest before the deposit was fulfilled',
      (a) => (a.deposit_agreements = [{ deposit_amount: '150.00', reason: 'Credit check', fulfilled_at: '2026-02-01T10:00:00Z', last_interest_date: '2026-01-01' }]),
      ['fulfilled_at_greater_than_last_interest_date@deposit_agreements.0.last_interest_date'],
    ],
    ['a payment plan adding up validates', (a) => Object.assign(a, { payment_schedules: [], payment_plans: [plan(9500, [['ENERGY', 8000], ['DEBT', 1500]])] }), []],
    ['a payment plan payment not adding up', (a) => Object.assign(a, { payment_schedules: [], payment_plans: [plan(9500, [['ENERGY', 8000]])] }), ['payment_plan_payment_components_do_not_sum_to_total@payment_plans.0.payments.0.total_amount']],
    ['a component type twice on a day', (a) => Object.assign(a, { payment_schedules: [], payment_plans: [plan(9500, [['ENERGY', 8000], ['ENERGY', 1500]])] }), ['duplicate_payment_component_combinations@payment_plans.0.payments.0.amount_components.1.component_type']],
    ['a planned payment before the plan', (a) => Object.assign(a, { payment_schedules: [], payment_plans: [plan(100, [], '2026-10-01')] }), ['payment_plan_payment_before_acceptance@payment_plans.0.payments.0.payment_date']],
    ['a FiT supply meter on its installation validates', (a) => (a.fit = fit({})), []],
    ['FiT by BACS without its mandate', (a) => (a.fit = fit({ payment_method: 'BACS', vendor_name: 'STRIPE' })), ['payment_instruction_details_incomplete@fit.instruction_reference']],
    ['a FiT meter of no installation', (a) => (a.fit = fit({ installations: [{ fit_id: 'FIT00999999' }] })), ['fit_meter_installation_not_found@fit.meters.0.extensions.0']],
    ['a FiT meter with a wrong MPAN', (a) => (a.fit = fit({ meters: [{ ...fit({}).meters[0], mpan: '2300111122227' }] })), ['invalid_supply_point_identifier@fit.meters.0.mpan']],
    ['a FiT supply meter without an MPAN', (a) => {
        a.fit = fit({});
        delete a.fit.meters[0].mpan;
      }, ['required@fit.meters.0.mpan']],
    ['the single debt validates', (a) => (a.debt = { agency_name: 'Northgate Recoveries', start_date: '2025-02-01' }), []],
    ['debt beside debts', (a) => Object.assign(a, { debt: { is_insolvent: false }, debts: [] }), ['debt_and_debts_are_defined@debt']],
    ['a single debt with a start date and no agency', (a) => (a.debt = { start_date: '2025-02-01' }), ['debt_collection_agency_name_required@debt.agency_name']],
    ['the top-level ledger form validates', toTopLevel, []],
    ['both ledger forms', (a) => (a.last_statement_issue_date = '2026-11-02'), ['ledger_forms_mixed@last_statement_issue_date']],
    [
      'a repeated transaction id in the top-level form',
      then(toTopLevel, (a) => (a.historical_statement_transactions[0].transaction_id = 'TX-100045-0301')),
      ['duplicate_transaction_ids@historical_statement_transactions.0.transaction_id'],
    ],
    [
      'a top-level historical transaction after the closing date',
      then(toTopLevel, (a) => (a.historical_statement_transactions[1].transaction_date = '2026-11-01')),
      ['historical_statement_transaction_after_last_statement_closing_date@historical_statement_transactions.1.transaction_date'],
    ],
  ])('%s', async (_name, mutate, expected) => {
    expect(await errorsAfter(mutate)).toEqual(expected);
  });
});
