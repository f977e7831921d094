import { checkPlatformFields } from '../../../account/rules/platform';
import { ELEC, GAS } from './helpers';
import { elec, elecMeter, gas, gasMeter, type Mutate } from './mutate';
import { ruleErrorsAfter } from './ruleContext';

const errorsAfter = (mutate: Mutate, shapeErrors: string[] = []) => ruleErrorsAfter(checkPlatformFields, mutate, shapeErrors);
const EM = `${ELEC}.meters.0`;
const GM = `${GAS}.meters.0`;

describe('platform meter point and meter fields', () => {
  it('finds nothing to say about the example account', () => {
    expect(errorsAfter(() => undefined)).toEqual([]);
  });

  it.each<[string, Mutate, string[]]>([
    ['units_of_measure on a gas meter is taken', (a) => (gasMeter(a).units_of_measure = 'SCFH'), []],
    ['units_of_measure on an electricity meter is field_not_for_supply_type', (a) => (elecMeter(a).units_of_measure = 'SCMH'), [`field_not_for_supply_type@${EM}.units_of_measure`]],
    ['a meter-level last_billed_to_date on an electricity meter is field_not_for_supply_type', (a) => (elecMeter(a).last_billed_to_date = '2026-10-31'), [`field_not_for_supply_type@${EM}.last_billed_to_date`]],
    ['a meter-level last_billed_to_date on a gas meter is taken', (a) => (gasMeter(a).last_billed_to_date = '2026-10-31'), []],
    ['export_type on an electricity meter point is taken', (a) => (elec(a).export_type = 'EXPORT_ONLY'), []],
    ['export_type on a gas meter point is field_not_for_supply_type', (a) => (gas(a).export_type = 'IMPORT_EXPORT'), [`field_not_for_supply_type@${GAS}.export_type`]],
    ['configuration_periods on a gas meter point is field_not_for_supply_type', (a) => (gas(a).configuration_periods = []), [`field_not_for_supply_type@${GAS}.configuration_periods`]],
    ['ldz on an electricity meter point is field_not_for_supply_type', (a) => (elec(a).ldz = 'NW'), [`field_not_for_supply_type@${ELEC}.ldz`]],
    ['a null platform field counts as not given', (a) => (gas(a).export_type = null), []],
    ['the spec\'s aq_history on an electricity meter point stays accepted', (a) => (elec(a).aq_history = []), []],
  ])('%s', (_name, mutate, expected) => {
    expect(errorsAfter(mutate)).toEqual(expected);
  });
});

describe('smart meter details', () => {
  it.each<[string, Mutate, string[]]>([
    [
      'a smart meter with a hyphenated device id, commissioned after installation, validates',
      (a) => Object.assign(elecMeter(a), { smart_type: 'SMETS2', smart_device_id: '01-23-45-67-89-AB-CD-EF', smart_commissioned_on: '2020-01-15' }),
      [],
    ],
    ['a plain 16-digit lower-case device id validates', (a) => (elecMeter(a).smart_device_id = '00db1234567890ab'), []],
    ['SMETS1_ENROLLED is smart', (a) => Object.assign(elecMeter(a), { smart_type: 'SMETS1_ENROLLED', smart_device_id: '00-DB-12-34-56-78-90-AB' }), []],
    ['a device id of 7 pairs is invalid_smart_device_id', (a) => (elecMeter(a).smart_device_id = '01-23-45-67-89-AB-CD'), [`invalid_smart_device_id@${EM}.smart_device_id`]],
    ['a device id with a non-hex digit is invalid_smart_device_id', (a) => (elecMeter(a).smart_device_id = '0123456789ABCDEG'), [`invalid_smart_device_id@${EM}.smart_device_id`]],
    ['a device id grouped in fours is invalid_smart_device_id', (a) => (elecMeter(a).smart_device_id = '0123-4567-89AB-CDEF'), [`invalid_smart_device_id@${EM}.smart_device_id`]],
    ['a device id with colons is invalid_smart_device_id', (a) => (elecMeter(a).smart_device_id = '01:23:45:67:89:AB:CD:EF'), [`invalid_smart_device_id@${EM}.smart_device_id`]],
    [
      'a device id on a NONE meter is smart_details_provided_for_non_smart_meter',
      (a) => Object.assign(elecMeter(a), { smart_type: 'NONE', smart_device_id: '0123456789ABCDEF' }),
      [`smart_details_provided_for_non_smart_meter@${EM}.smart_device_id`],
    ],
    [
      'a commissioning date on a meter without smart_type is smart_details_provided_for_non_smart_meter',
      (a) => (gasMeter(a).smart_commissioned_on = '2020-01-15'),
      [`smart_details_provided_for_non_smart_meter@${GM}.smart_commissioned_on`],
    ],
    ['null smart fields on a meter that is not smart are not given', (a) => Object.assign(gasMeter(a), { smart_type: 'NONE', smart_device_id: null, smart_commissioned_on: null }), []],
    ['commissioned today validates', (a) => (elecMeter(a).smart_commissioned_on = '2026-11-21'), []],
    ['commissioned tomorrow is future_smart_meter_commission_date', (a) => (elecMeter(a).smart_commissioned_on = '2026-11-22'), [`future_smart_meter_commission_date@${EM}.smart_commissioned_on`]],
    ['commissioned on the day of installation validates', (a) => (elecMeter(a).smart_commissioned_on = '2019-08-12'), []],
    ['commissioned before installation is smart_commissioned_before_installed', (a) => (elecMeter(a).smart_commissioned_on = '2019-08-11'), [`smart_commissioned_before_installed@${EM}.smart_commissioned_on`]],
  ])('%s', (_name, mutate, expected) => {
    expect(errorsAfter(mutate)).toEqual(expected);
  });
});

describe('meter removal and prepay reference', () => {
  // A gas meter exchanged on `day`, with its read of that day and its last billed date (the exchange rules below).
  const removedGas = (day: string): Mutate => (a) => {
    Object.assign(gasMeter(a), { removed_on: day, last_billed_to_date: day });
    gasMeter(a).reading_history.push({ reading_date: day, reading_value: '00001', reading_type: 'ROUTINE' });
  };
  it.each<[string, Mutate, string[]]>([
    ['removed the day it was installed validates', removedGas('2015-05-20'), []],
    ['removed before it was installed is start_date_later_than_end_date', removedGas('2015-05-19'), [`start_date_later_than_end_date@${GM}.removed_on`]],
    ['an electricity prepay reference with spaces validates', (a) => Object.assign(elecMeter(a), { is_prepay: true, prepay_customer_reference_number: '1234 5678 90' }), []],
    [
      'an electricity prepay reference with letters is invalid_prepay_customer_reference_number',
      (a) => Object.assign(elecMeter(a), { is_prepay: true, prepay_customer_reference_number: 'PP-1234' }),
      [`invalid_prepay_customer_reference_number@${EM}.prepay_customer_reference_number`],
    ],
    ['a gas prepay reference is not held to digits', (a) => Object.assign(gasMeter(a), { is_prepay: true, prepay_customer_reference_number: 'PP-1234' }), []],
    [
      'a prepay reference on a meter that is not prepay is prepay_details_on_non_prepay_meter',
      (a) => (gasMeter(a).prepay_customer_reference_number = '12345'),
      [`prepay_details_on_non_prepay_meter@${GM}.prepay_customer_reference_number`],
    ],
  ])('%s', (_name, mutate, expected) => {
    expect(errorsAfter(mutate)).toEqual(expected);
  });

  it('reads no meter point with a shape error in it', () => {
    expect(errorsAfter((a) => (gas(a).export_type = 'IMPORT_EXPORT'), [`${GAS}.meters.0.meter_serial_number`])).toEqual([]);
  });
});

const open = (from: string) => ({ effective_from_date: from, value: '69.00' });
const closed = (from: string, to: string) => ({ effective_from_date: from, effective_to_date: to, value: '69.00' });
const CAP = `${ELEC}.capacity_values`;
const CONF = `${ELEC}.configuration_periods`;

describe('capacity values and configuration periods', () => {
  it.each<[string, Mutate, string[]]>([
    ['each value starting the day the previous ends validates', (a) => (elec(a).capacity_values = [closed('2024-01-01', '2025-01-01'), open('2025-01-01')]), []],
    ['payload order does not matter', (a) => (elec(a).capacity_values = [open('2025-01-01'), closed('2024-01-01', '2025-01-01')]), []],
    ['a gap is gaps_or_overlaps_in_periods', (a) => (elec(a).capacity_values = [closed('2024-01-01', '2025-01-01'), open('2025-01-02')]), [`gaps_or_overlaps_in_periods@${CAP}.1.effective_from_date`]],
    ['an overlap is gaps_or_overlaps_in_periods', (a) => (elec(a).capacity_values = [closed('2024-01-01', '2025-01-01'), open('2024-12-01')]), [`gaps_or_overlaps_in_periods@${CAP}.1.effective_from_date`]],
    ['a value after an open-ended one is gaps_or_overlaps_in_periods', (a) => (elec(a).capacity_values = [open('2024-01-01'), open('2025-01-01')]), [`gaps_or_overlaps_in_periods@${CAP}.1.effective_from_date`]],
    [
      'a value ending the day it starts is zero_length_periods',
      (a) => (elec(a).capacity_values = [closed('2024-01-01', '2024-01-01'), open('2024-01-01')]),
      [`zero_length_periods@${CAP}.0.effective_to_date`],
    ],
    [
      'a value ending before it starts is start_date_later_than_end_date only',
      (a) => (elec(a).capacity_values = [closed('2024-01-01', '2023-01-01'), open('2025-01-01')]),
      [`start_date_later_than_end_date@${CAP}.0.effective_to_date`],
    ],
    ['an open configuration period started in the past validates', (a) => (elec(a).configuration_periods = [{ effective_from_date: '2022-11-01', measurement_class: 'A', energisation_status: 'E' }]), []],
    [
      'a configuration period starting tomorrow is configuration_period_starts_in_future',
      (a) => (elec(a).configuration_periods = [closed('2022-11-01', '2026-11-22'), open('2026-11-22')]),
      [`configuration_period_starts_in_future@${CONF}.1.effective_from_date`],
    ],
    [
      'a latest configuration period with an end is latest_configuration_period_not_open_ended',
      (a) => (elec(a).configuration_periods = [closed('2022-11-01', '2024-01-01'), closed('2024-01-01', '2026-01-01')]),
      [`latest_configuration_period_not_open_ended@${CONF}.1.effective_to_date`],
    ],
    [
      'overlapping configuration periods are gaps_or_overlaps_in_periods',
      (a) => (elec(a).configuration_periods = [closed('2022-11-01', '2024-06-01'), open('2024-01-01')]),
      [`gaps_or_overlaps_in_periods@${CONF}.1.effective_from_date`],
    ],
  ])('%s', (_name, mutate, expected) => {
    expect(errorsAfter(mutate)).toEqual(expected);
  });
});

const exemption = (from: string, to?: string) => ({ effective_from: from, ...(to === undefined ? {} : { effective_to: to }), rate: '1.00' });

describe('VAT and CCL exemptions', () => {
  it.each<[string, Mutate, string[]]>([
    ['one starting the day the previous ends validates', (a) => (elec(a).vat_exemptions = [exemption('2024-01-01', '2025-01-01'), exemption('2025-01-01')]), []],
    ['one ending the day it starts is start_date_same_as_end_date', (a) => (elec(a).vat_exemptions = [exemption('2024-01-01', '2024-01-01')]), [`start_date_same_as_end_date@${ELEC}.vat_exemptions.0.effective_to`]],
    ['one ending before it starts is start_date_same_as_end_date', (a) => (gas(a).ccl_exemptions = [exemption('2024-01-01', '2023-12-31')]), [`start_date_same_as_end_date@${GAS}.ccl_exemptions.0.effective_to`]],
    [
      'two open-ended are multiple_open_ended_tax_exemptions',
      (a) => (elec(a).ccl_exemptions = [exemption('2025-01-01'), exemption('2024-01-01', '2024-06-01'), exemption('2024-06-01')]),
      [`multiple_open_ended_tax_exemptions@${ELEC}.ccl_exemptions.2`],
    ],
    [
      'an overlap is overlapping_effective_dates_for_tax_exemptions',
      (a) => (elec(a).vat_exemptions = [exemption('2024-01-01', '2025-01-01'), exemption('2024-06-01')]),
      [`overlapping_effective_dates_for_tax_exemptions@${ELEC}.vat_exemptions.1.effective_from`],
    ],
    [
      'one after an open-ended one is overlapping_effective_dates_for_tax_exemptions',
      (a) => (elec(a).vat_exemptions = [exemption('2024-01-01'), exemption('2025-01-01', '2025-06-01')]),
      [`overlapping_effective_dates_for_tax_exemptions@${ELEC}.vat_exemptions.1.effective_from`],
    ],
    ['VAT and CCL exemptions are separate series', (a) => Object.assign(elec(a), { vat_exemptions: [exemption('2024-01-01')], ccl_exemptions: [exemption('2024-01-01')] }), []],
  ])('%s', (_name, mutate, expected) => {
    // Tax exemptions are a business account's (tax_exemptions_provided_for_domestic_account).
    const business: Mutate = (a) => {
      a.account_type = 'BUSINESS';
      mutate(a);
    };
    expect(errorsAfter(business)).toEqual(expected);
  });
});

describe('exchanged meters (a removed_on): the platform\'s meter exchange rules', () => {
  // The example's meters exchanged on the day of their transfer readings (2026-10-31), each with its last billed to date.
  const exchangedElec: Mutate = (a) => {
    const m = elecMeter(a);
    m.removed_on = '2026-10-31';
    for (const r of m.registers) r.last_billed_to_date = '2026-10-31';
  };
  const exchangedGas: Mutate = (a) => Object.assign(gasMeter(a), { removed_on: '2026-10-31', last_billed_to_date: '2026-10-31' });
  const and = (...ms: Mutate[]): Mutate => (a) => ms.forEach((m) => m(a));

  it.each<[string, Mutate, string[]]>([
    ['an exchanged electricity meter with its readings and its registers\' last billed dates validates', exchangedElec, []],
    ['an exchanged gas meter with its readings and its last billed date validates', exchangedGas, []],
    ['a removal read in the reading history is a reading on the day', and(exchangedGas, (a) => (gasMeter(a).reading_history[0].reading_date = '2026-10-31'), (a) => (gasMeter(a).transfer_readings[0].reading_date = '2026-10-30'), (a) => (gasMeter(a).last_billed_to_date = '2026-10-30')), []],
    ['without transfer readings it is no_transfer_reading_on_exchanged_meter (and no reading on the day)', and(exchangedGas, (a) => (gasMeter(a).transfer_readings = [])), [`no_transfer_reading_on_exchanged_meter@${GM}.transfer_readings`, `no_reading_on_removed_on@${GM}.removed_on`]],
    ['without a reading of the removal day it is no_reading_on_removed_on', and(exchangedElec, (a) => { elecMeter(a).removed_on = '2026-11-01'; }), [`no_reading_on_removed_on@${EM}.removed_on`]],
    ['a gas meter without its last billed date is no_last_billed_to_date_on_exchanged_meter', and(exchangedGas, (a) => delete gasMeter(a).last_billed_to_date), [`no_last_billed_to_date_on_exchanged_meter@${GM}.last_billed_to_date`]],
    ['a settlement register without its last billed date is no_last_billed_to_date_on_exchanged_meter', and(exchangedElec, (a) => delete elecMeter(a).registers[1].last_billed_to_date), [`no_last_billed_to_date_on_exchanged_meter@${EM}.registers.1.last_billed_to_date`]],
    ['a register that is not a settlement register needs none', and(exchangedElec, (a) => { delete elecMeter(a).registers[1].last_billed_to_date; elecMeter(a).registers[1].is_settlement = false; }), []],
    ['a null removed_on is not an exchange', (a) => (gasMeter(a).removed_on = null), []],
  ])('%s', (_name, mutate, expected) => {
    expect(errorsAfter(mutate)).toEqual(expected);
  });
});
