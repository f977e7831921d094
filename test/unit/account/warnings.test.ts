import { ELEC, GAS, example, validator, warningsOf } from './helpers';
import { elecMeter, gasMeter } from './mutate';

describe('warnings', () => {
  it('gives the example account no warnings', async () => {
    expect(warningsOf(await validator().validate(example(), { mode: 'validate' }))).toEqual([]);
  });

  it('warns customer_without_email for a customer without an email, and still accepts the account', async () => {
    const account = example();
    delete account.customers[1].email;
    const outcome = await validator().validate(account, { mode: 'validate' });
    expect(outcome.ok).toBe(true);
    expect(warningsOf(outcome)).toEqual(['customer_without_email@customers.1.email']);
  });

  it('warns customer_emails_disabled_for_supplier when the supplier sends no customer emails', async () => {
    const outcome = await validator({ supplier: { sendCustomerEmails: false } }).validate(example(), { mode: 'create' });
    expect(outcome.ok).toBe(true);
    expect(warningsOf(outcome)).toEqual(['customer_emails_disabled_for_supplier@import_supplier']);
  });

  it('warns reading_exceeds_register_digits for readings longer than their register or gas meter dials', async () => {
    const account = example();
    elecMeter(account).transfer_readings[0].reading_value = '1834200.0';
    gasMeter(account).reading_history[0].reading_value = '104471';
    const outcome = await validator().validate(account, { mode: 'validate' });
    expect(outcome.ok).toBe(true);
    expect(warningsOf(outcome)).toEqual([
      `reading_exceeds_register_digits@${ELEC}.meters.0.transfer_readings.0.reading_value`,
      `reading_exceeds_register_digits@${GAS}.meters.0.reading_history.0.reading_value`,
    ]);
  });
});
