import { check, example } from './helpers';
import { errorsAfter, type Mutate } from './mutate';

describe('customer and contact rules', () => {
  it.each<[string, Mutate, string[]]>([
    ['a mobile outside the UK numbering plan is invalid_phone_number', (a) => (a.customers[0].mobile = '07911 12345'), ['invalid_phone_number@customers.0.mobile']],
    ['a foreign landline is invalid_phone_number', (a) => (a.customers[0].landline = '+33 1 42 68 53 00'), ['invalid_phone_number@customers.0.landline']],
    [
      'a property administrator phone is checked too',
      (a) => (a.supply_addresses[0].property_administrators = [{ given_name: 'Sam', family_name: 'Lee', landline: '12345' }]),
      ['invalid_phone_number@supply_addresses.0.property_administrators.0.landline'],
    ],
    ['a billing postcode that is not a UK postcode is invalid_postcode', (a) => (a.billing_postcode = 'LS1 4D'), ['invalid_postcode@billing_postcode']],
    ['a supply postcode that is not a UK postcode is invalid_postcode', (a) => (a.supply_addresses[0].supply_postcode = '12345'), ['invalid_postcode@supply_addresses.0.supply_postcode']],
    ['an email without a domain is invalid_email', (a) => (a.customers[0].email = 'aoife@'), ['invalid_email@customers.0.email']],
    ['an email with a space is invalid_email', (a) => (a.customers[1].email = 't wojcik@example.net'), ['invalid_email@customers.1.email']],
    ['test@… is possible_test_email_address', (a) => (a.customers[0].email = 'test@example.org'), ['possible_test_email_address@customers.0.email']],
    ['xxx@… is possible_test_email_address', (a) => (a.customers[0].email = 'XXX@example.org'), ['possible_test_email_address@customers.0.email']],
    ['…@test.com is possible_test_email_address', (a) => (a.customers[0].email = 'aoife@test.com'), ['possible_test_email_address@customers.0.email']],
    ['…@test.co.uk is possible_test_email_address', (a) => (a.customers[0].email = 'aoife@test.co.uk'), ['possible_test_email_address@customers.0.email']],
    ['….xxx is possible_test_email_address', (a) => (a.customers[0].email = 'aoife@example.xxx'), ['possible_test_email_address@customers.0.email']],
    ['….xx is possible_test_email_address', (a) => (a.customers[0].email = 'aoife@example.xx'), ['possible_test_email_address@customers.0.email']],
    ['a PSR record with both codes is psr_industry_code_not_provided', (a) => (a.customers[0].psr[0].gas_industry_code = '14'), ['psr_industry_code_not_provided@customers.0.psr.0']],
    ['a PSR record with neither code is psr_industry_code_not_provided', (a) => delete a.customers[0].psr[1].gas_industry_code, ['psr_industry_code_not_provided@customers.0.psr.1']],
    ['an unknown PSR needs code is psr_invalid_industry_code', (a) => (a.customers[0].psr[0].elec_industry_code = '36'), ['psr_invalid_industry_code@customers.0.psr.0.elec_industry_code']],
    ['a zero-padded PSR needs code is accepted', (a) => (a.customers[0].psr[1].gas_industry_code = '07'), []],
  ])('%s', async (_name, mutate, expected) => {
    expect(await errorsAfter(mutate)).toEqual(expected);
  });

  it('returns phone numbers in E.164 and postcodes upper case with one space, leaving the input untouched', async () => {
    const account = example();
    account.billing_postcode = 'ls14dy';
    account.supply_addresses[0].supply_postcode = ' sw1a  1aa ';
    const outcome = await check(account);
    if (!outcome.ok) throw new Error(JSON.stringify(outcome.errors));
    expect(outcome.account.customers[0].mobile).toBe('+447911123456');
    expect(outcome.account.customers[0].landline).toBe('+442079460123');
    expect(outcome.account.billing_postcode).toBe('LS1 4DY');
    expect(outcome.account.supply_addresses[0].supply_postcode).toBe('SW1A 1AA');
    expect(account.customers[0].mobile).toBe('07911 123456');
    expect(account.billing_postcode).toBe('ls14dy');
  });
});
