import { check, errorsOf, example, ELEC, GAS } from './helpers';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Mutate = (a: any) => void;

async function errorsAfter(mutate: Mutate): Promise<string[]> {
  const account = example();
  mutate(account);
  return errorsOf(await check(account));
}

describe('shape of the Account (ajv, translated to codes and dot paths)', () => {
  it.each<[string, Mutate, string[]]>([
    ['an unknown top-level field is unknown_field at its own path', (a) => (a.nickname = 'x'), ['unknown_field@nickname']],
    ['an unknown nested field is unknown_field at its own path', (a) => (a.supply_addresses[0].meter_points[0].meters[0].registers[1].colour = 'red'), [`unknown_field@${ELEC}.meters.0.registers.1.colour`]],
    ['a missing required field is required at its path', (a) => delete a.external_account_number, ['required@external_account_number']],
    ['an optional object once supplied needs its required fields', (a) => (a.dunning_path = { start_date: '2026-12-01' }), ['required@dunning_path.path_name']],
    ['a missing reading value is required', (a) => delete a.supply_addresses[0].meter_points[1].meters[0].transfer_readings[0].reading_value, [`required@${GAS}.meters.0.transfer_readings.0.reading_value`]],
    ['a wrong JSON type is invalid', (a) => (a.smart_read_cycle_day = '3'), ['invalid@smart_read_cycle_day']],
    ['a boolean given as a string is invalid', (a) => (a.supply_addresses[0].is_landlord = 'no'), ['invalid@supply_addresses.0.is_landlord']],
    ['null where not allowed is null', (a) => (a.customers[1].email = null), ['null@customers.1.email']],
    ['an empty string in identifying text is blank', (a) => (a.external_account_number = ''), ['blank@external_account_number']],
    ['external_account_number longer than 128 is max_length', (a) => (a.external_account_number = 'x'.repeat(129)), ['max_length@external_account_number']],
    ['mpid longer than 4 is max_length', (a) => (a.supply_addresses[0].meter_points[0].mpid = 'DEMOX'), [`max_length@${ELEC}.mpid`]],
    ['shipper_mpid longer than 3 is max_length', (a) => (a.supply_addresses[0].meter_points[1].shipper_mpid = 'DSHX'), [`max_length@${GAS}.shipper_mpid`]],
    ['a date that is not a real day is invalid_date', (a) => (a.customers[0].date_of_birth = '2026-02-30'), ['invalid_date@customers.0.date_of_birth']],
    ['a date in another form is invalid_date', (a) => (a.last_billed_to_date = '31/10/2026'), ['invalid_date@last_billed_to_date']],
    // As a client generated from the platform's document sends it; read in Europe/London.
    ['a datetime without a zone is valid', (a) => (a.notes[0].created_at = '2026-06-14T09:31:00'), []],
    ['a datetime with a space for its T is invalid_datetime', (a) => (a.notes[0].created_at = '2026-06-14 09:31:00'), ['invalid_datetime@notes.0.created_at']],
    ['an exponent decimal is invalid_decimal', (a) => (a.ledgers[0].current_statement_transactions[0].amount = '1e3'), ['invalid_decimal@ledgers.0.current_statement_transactions.0.amount']],
    ['a comma decimal is invalid_decimal', (a) => (a.payment_schedules[0].amount = '12,5'), ['invalid_decimal@payment_schedules.0.amount']],
    ['a decimal with a leading space is invalid_decimal', (a) => (a.supply_addresses[0].meter_points[1].aq_history[1].consumption = ' 1'), [`invalid_decimal@${GAS}.aq_history.1.consumption`]],
    ['a decimal given as a number is invalid', (a) => (a.payment_schedules[0].amount = 95), ['invalid@payment_schedules.0.amount']],
    ['a value outside an enumeration is invalid_choice', (a) => (a.supply_addresses[0].meter_points[0].supply_type = 'WATER'), [`invalid_choice@${ELEC}.supply_type`]],
    ['an unknown reading type is invalid_choice', (a) => (a.supply_addresses[0].meter_points[0].meters[0].reading_history[0].reading_type = 'GUESS'), [`invalid_choice@${ELEC}.meters.0.reading_history.0.reading_type`]],
    ['profile_class above 8 is max_value', (a) => (a.supply_addresses[0].meter_points[0].profile_class = 9), [`max_value@${ELEC}.profile_class`]],
    ['profile_class below 0 is min_value', (a) => (a.supply_addresses[0].meter_points[0].profile_class = -1), [`min_value@${ELEC}.profile_class`]],
    ['number_of_digits 0 is min_value', (a) => (a.supply_addresses[0].meter_points[0].meters[0].registers[0].number_of_digits = 0), [`min_value@${ELEC}.meters.0.registers.0.number_of_digits`]],
    ['number_of_digits 16 is max_value', (a) => (a.supply_addresses[0].meter_points[0].meters[0].registers[0].number_of_digits = 16), [`max_value@${ELEC}.meters.0.registers.0.number_of_digits`]],
    ['day_of_month 29 is invalid_day_of_month', (a) => (a.payment_schedules[0].day_of_month = 29), ['invalid_day_of_month@payment_schedules.0.day_of_month']],
    ['day_of_month 0 is invalid_day_of_month', (a) => (a.payment_schedules[0].day_of_month = 0), ['invalid_day_of_month@payment_schedules.0.day_of_month']],
    ['smart_read_cycle_day 32 is max_value', (a) => (a.smart_read_cycle_day = 32), ['max_value@smart_read_cycle_day']],
    ['a non-integer count is invalid', (a) => (a.supply_addresses[0].meter_points[1].meters[0].gas_number_of_digits = 5.5), [`invalid@${GAS}.meters.0.gas_number_of_digits`]],
  ])('%s', async (_name, mutate, expected) => {
    expect(await errorsAfter(mutate)).toEqual(expected);
  });

  it('accepts the decimal forms of docs/spec/RULES.md ("12.5", "-3.00") and empty descriptive text', async () => {
    expect(
      await errorsAfter((a) => {
        a.payment_schedules[0].amount = '12.5';
        a.ledgers[0].last_statement_balance = '-3.00';
        a.sales_subchannel = '';
        a.customers[0].title = '';
      }),
    ).toEqual([]);
  });

  it('accepts a real leap day and a datetime with an offset', async () => {
    expect(
      await errorsAfter((a) => {
        a.customers[0].date_of_birth = '2000-02-29';
        a.notes[0].created_at = '2026-06-14T09:31:00.250+01:00';
      }),
    ).toEqual([]);
  });

  it('reports every shape error of a payload, not only the first', async () => {
    expect(
      await errorsAfter((a) => {
        a.customers[0].date_of_birth = '2026-13-01';
        a.supply_addresses[0].meter_points[1].meters[0].transfer_readings[0].reading_value = 'lots';
        a.statements[0].extra = 1;
      }),
    ).toEqual([
      'invalid_date@customers.0.date_of_birth',
      `invalid_decimal@${GAS}.meters.0.transfer_readings.0.reading_value`,
      'unknown_field@statements.0.extra',
    ]);
  });

  it.each([[null], [[]], ['account'], [42], [true]])('answers a body that is not an object (%p) with invalid on non_field_errors', async (body) => {
    expect(errorsOf(await check(body))).toEqual(['invalid@non_field_errors']);
  });
});
