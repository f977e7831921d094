import { isValidMpan, isValidMprn } from '../../../account/rules/supplyPointIds';
import { createAccountValidator } from '../../../account/validator';
import { withMpanCheckDigit, withMprnCheckDigits } from './arbitraries';
import { DEFAULT_REF, DEMO_SUPPLIER, ELEC, GAS, errorsOf, example, NO_DOCUMENTS } from './helpers';
import { elec, elecMeter, errorsAfter, gas, gasMeter, type Mutate } from './mutate';

describe('supply point identifiers', () => {
  it('accepts the example MPAN and MPRN and rejects a wrong check digit', () => {
    expect(isValidMpan('2300111122226')).toBe(true);
    expect(isValidMpan('2300111122227')).toBe(false);
    expect(isValidMprn('7382190405')).toBe(true);
    expect(isValidMprn('7382190406')).toBe(false);
  });

  it('rejects an MPAN whose distributor id is outside 10–36, even with a right check digit', () => {
    expect(isValidMpan(withMpanCheckDigit('090011112222'))).toBe(false);
    expect(isValidMpan(withMpanCheckDigit('370011112222'))).toBe(false);
    expect(isValidMpan(withMpanCheckDigit('360011112222'))).toBe(true);
  });

  it('accepts MPRNs of 6 to 10 digits only', () => {
    expect(isValidMprn(withMprnCheckDigits('1234'))).toBe(true);
    expect(isValidMprn(withMprnCheckDigits('123'))).toBe(false);
    expect(isValidMprn(withMprnCheckDigits('12345678'))).toBe(true);
    expect(isValidMprn(withMprnCheckDigits('123456789'))).toBe(false);
  });
});

describe('meter point rules', () => {
  it.each<[string, Mutate, string[]]>([
    ['a wrong MPAN check digit is invalid_supply_point_identifier', (a) => (elec(a).identifier = '2300111122227'), [`invalid_supply_point_identifier@${ELEC}.identifier`]],
    ['a wrong MPRN check digit is invalid_supply_point_identifier', (a) => (gas(a).identifier = '7382190406'), [`invalid_supply_point_identifier@${GAS}.identifier`]],
    [
      'the same MPxN twice on one address is duplicate_meter_points_provided',
      (a) => a.supply_addresses[0].meter_points.push(structuredClone(elec(a))),
      ['duplicate_meter_points_provided@supply_addresses.0.meter_points.2.identifier'],
    ],
    [
      'the same MPxN on two addresses is duplicate_meter_points_on_different_supply_addresses_provided',
      (a) => a.supply_addresses.push({ ...structuredClone(a.supply_addresses[0]), supply_address1: 'Flat 3', meter_points: [structuredClone(elec(a))] }),
      ['duplicate_meter_points_on_different_supply_addresses_provided@supply_addresses.1.meter_points.0.identifier'],
    ],
    [
      'the same supply address twice (whatever the case and spacing) is duplicate_supply_addresses_found',
      (a) => a.supply_addresses.push({ ...structuredClone(a.supply_addresses[0]), supply_address1: 'flat  2', supply_postcode: 'ls14dy', meter_points: [] }),
      ['duplicate_supply_addresses_found@supply_addresses.1'],
    ],
    [
      'an active electricity meter without registers is registers_missing_for_active_electricity_meter',
      (a) => {
        delete elecMeter(a).registers;
        elecMeter(a).transfer_readings = [];
        delete elecMeter(a).reading_history;
      },
      [`registers_missing_for_active_electricity_meter@${ELEC}.meters.0.registers`],
    ],
    ['a register without a TPR is registers_missing_for_active_electricity_meter', (a) => delete elecMeter(a).registers[1].tpr, [`registers_missing_for_active_electricity_meter@${ELEC}.meters.0.registers.1.tpr`]],
    [
      'two registers with one id is meter_with_duplicate_register_ids',
      (a) => {
        elecMeter(a).registers.push({ register_id: '1', tpr: '00043', number_of_digits: 6 });
        elec(a).eac_history.push({ effective_from: '2025-11-01', tpr: '00043', consumption: '1.0' });
      },
      [`meter_with_duplicate_register_ids@${ELEC}.meters.0.registers.2.register_id`],
    ],
    ['two registers with one TPR is registers_have_duplicate_tprs', (a) => (elecMeter(a).registers[1].tpr = '00206'), [`registers_have_duplicate_tprs@${ELEC}.meters.0.registers.1.tpr`]],
    [
      'a transfer reading naming no register is reading_register_id_not_recognised (and its register then lacks one)',
      (a) => (elecMeter(a).transfer_readings[1].register_id = '9'),
      [`reading_register_id_not_recognised@${ELEC}.meters.0.transfer_readings.1.register_id`, `missing_transfer_reading_for_register@${ELEC}.meters.0.registers.1`],
    ],
    ['a history reading naming no register is historical_reading_register_id_not_recognised', (a) => (elecMeter(a).reading_history[2].register_id = '7'), [`historical_reading_register_id_not_recognised@${ELEC}.meters.0.reading_history.2.register_id`]],
    ['an active register without a transfer reading is missing_transfer_reading_for_register', (a) => elecMeter(a).transfer_readings.splice(1, 1), [`missing_transfer_reading_for_register@${ELEC}.meters.0.registers.1`]],
    [
      'two transfer readings for one register is multiple_transfer_readings_for_register',
      (a) => elecMeter(a).transfer_readings.push({ ...elecMeter(a).transfer_readings[0] }),
      [`multiple_transfer_readings_for_register@${ELEC}.meters.0.transfer_readings.2.register_id`],
    ],
    ['an active gas meter without a transfer reading is active_gas_meter_without_transfer_reading', (a) => (gasMeter(a).transfer_readings = []), [`active_gas_meter_without_transfer_reading@${GAS}.meters.0.transfer_readings`]],
    [
      'an active gas meter with two transfer readings is active_gas_meter_with_multiple_transfer_readings',
      (a) => gasMeter(a).transfer_readings.push({ ...gasMeter(a).transfer_readings[0] }),
      [`active_gas_meter_with_multiple_transfer_readings@${GAS}.meters.0.transfer_readings.1`],
    ],
    ['a gas meter installed after today needs no transfer reading', (a) => Object.assign(gasMeter(a), { installed_on: '2026-12-01', transfer_readings: [] }), []],
    // A removed meter is not active (the platform's definition): the active meters' rules leave it to the exchange rules.
    [
      'a removed gas meter with two transfer readings is not active_gas_meter_with_multiple_transfer_readings',
      (a) => { Object.assign(gasMeter(a), { removed_on: '2026-10-31', last_billed_to_date: '2026-10-31' }); gasMeter(a).transfer_readings.push({ ...gasMeter(a).transfer_readings[0] }); },
      [],
    ],
    [
      'a removed electricity meter\'s registers need no transfer reading each, nor an EAC for their TPR',
      (a) => {
        Object.assign(elecMeter(a), { removed_on: '2026-10-31' });
        for (const r of elecMeter(a).registers) r.last_billed_to_date = '2026-10-31';
        elecMeter(a).transfer_readings.splice(1, 1);
        elec(a).eac_history.splice(1, 1);
      },
      [],
    ],
    ['two EACs for one TPR from one date is repeated_eac_for_tpr', (a) => elec(a).eac_history.push({ ...elec(a).eac_history[0] }), [`repeated_eac_for_tpr@${ELEC}.eac_history.2`]],
    ['an active register TPR without an EAC is missing_eacs_for_active_register_tpr', (a) => elec(a).eac_history.splice(1, 1), [`missing_eacs_for_active_register_tpr@${ELEC}.eac_history`]],
    ['two open-ended AQs is multiple_open_ended_aqs_in_meterpoint_aq_history', (a) => delete gas(a).aq_history[0].effective_to, [`multiple_open_ended_aqs_in_meterpoint_aq_history@${GAS}.aq_history.1`]],
    ['a gap between AQs is gaps_or_overlaps_in_aq_history', (a) => (gas(a).aq_history[0].effective_to = '2025-03-30'), [`gaps_or_overlaps_in_aq_history@${GAS}.aq_history.1.effective_from`]],
    ['an overlap between AQs is gaps_or_overlaps_in_aq_history', (a) => (gas(a).aq_history[1].effective_from = '2025-03-01'), [`gaps_or_overlaps_in_aq_history@${GAS}.aq_history.1.effective_from`]],
    [
      'an AQ ending before it starts is start_date_later_than_end_date',
      (a) => (gas(a).aq_history[0].effective_to = '2024-03-01'),
      [`start_date_later_than_end_date@${GAS}.aq_history.0.effective_to`, `gaps_or_overlaps_in_aq_history@${GAS}.aq_history.1.effective_from`],
    ],
    [
      'two agreements from one date is gaps_or_overlaps_in_agreement_dates',
      (a) => elec(a).agreements.push({ tariff_code: 'E-1R-VAR-22-11-01-M', effective_from: '2022-11-01' }),
      [`gaps_or_overlaps_in_agreement_dates@${ELEC}.agreements.1.effective_from`],
    ],
    [
      'a gap after a closed agreement is gaps_or_overlaps_in_agreement_dates',
      (a) => {
        elec(a).agreements[0].effective_to = '2023-10-31';
        elec(a).agreements.push({ tariff_code: 'E-1R-VAR-22-11-01-M', effective_from: '2023-12-01' });
      },
      [`gaps_or_overlaps_in_agreement_dates@${ELEC}.agreements.1.effective_from`],
    ],
    [
      'consecutive agreements are accepted',
      (a) => {
        elec(a).agreements[0].effective_to = '2023-10-31';
        elec(a).agreements.unshift({ tariff_code: 'E-1R-VAR-22-11-01-M', effective_from: '2023-11-01' });
      },
      [],
    ],
    ['an agreement ending before it starts is start_date_later_than_end_date', (a) => (elec(a).agreements[0].effective_to = '2022-10-31'), [`start_date_later_than_end_date@${ELEC}.agreements.0.effective_to`]],
    ['an agreement before the supply start is agreement_start_date_before_supply_start_date', (a) => (elec(a).agreements[0].effective_from = '2022-10-01'), [`agreement_start_date_before_supply_start_date@${ELEC}.agreements.0.effective_from`]],
    [
      'a billable meter point starting supply after today is future_supply_start_date',
      (a) => {
        elec(a).supply_start_date = '2026-12-01';
        elec(a).agreements[0].effective_from = '2026-12-01';
      },
      [`future_supply_start_date@${ELEC}.supply_start_date`],
    ],
    ['an erroneous transfer in progress is erroneous_transfer_not_in_progress', (a) => (elec(a).et_in_progress = true), [`erroneous_transfer_not_in_progress@${ELEC}.et_in_progress`]],
    ['a disputed read in progress is disputed_read_in_progress', (a) => (gas(a).dr_in_progress = true), [`disputed_read_in_progress@${GAS}.dr_in_progress`]],
    ['a refusal reason with INTERESTED is smart_refusal_reason_given_for_interest', (a) => (elec(a).smart_refusal_interest.type = 'INTERESTED'), [`smart_refusal_reason_given_for_interest@${ELEC}.smart_refusal_interest.refusal_reason`]],
    ['prepay details on a credit meter is prepay_details_on_non_prepay_meter', (a) => (elecMeter(a).prepay_details = { debt_balance: '0.00' }), [`prepay_details_on_non_prepay_meter@${ELEC}.meters.0.prepay_details`]],
    [
      'prepay details on a prepay meter are accepted',
      (a) => Object.assign(gasMeter(a), { is_prepay: true, prepay_details: { credit_balance: '5.00', gas_debt_repayment_options: { weekly_min: '1.00', weekly_max: '3.50' } } }),
      [],
    ],
    [
      'billed readings after last_billed_to_date are billed_reading_after_last_billed_to_date',
      (a) => (a.last_billed_to_date = '2026-09-15'),
      [
        `billed_reading_after_last_billed_to_date@${ELEC}.meters.0.reading_history.0.reading_date`,
        `billed_reading_after_last_billed_to_date@${ELEC}.meters.0.reading_history.1.reading_date`,
        `billed_reading_after_last_billed_to_date@${GAS}.meters.0.reading_history.0.reading_date`,
      ],
    ],
  ])('%s', async (_name, mutate, expected) => {
    expect(await errorsAfter(mutate)).toEqual(expected);
  });

  it('compares supply dates with the calendar day in London, not UTC', async () => {
    // 23:30 UTC on 30 June is already 1 July in London (BST).
    const v = createAccountValidator({
      referenceData: () => DEFAULT_REF,
      suppliers: async () => DEMO_SUPPLIER,
      documentStore: NO_DOCUMENTS,
      now: () => new Date('2026-06-30T23:30:00Z'),
    });
    const account = example();
    account.last_payment_review_date = '2026-05-01';
    elec(account).supply_start_date = '2026-07-01';
    elec(account).agreements[0].effective_from = '2026-07-01';
    const onFirstJuly = errorsOf(await v.validate(account, { mode: 'validate' }));
    expect(onFirstJuly.filter((e) => e.startsWith('future_supply_start_date'))).toEqual([]);
    elec(account).supply_start_date = '2026-07-02';
    elec(account).agreements[0].effective_from = '2026-07-02';
    const onSecondJuly = errorsOf(await v.validate(account, { mode: 'validate' }));
    expect(onSecondJuly.filter((e) => e.startsWith('future_supply_start_date'))).toEqual([`future_supply_start_date@${ELEC}.supply_start_date`]);
  });
});
