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
    // Area 2 of issue 35: the platform's PSR and vulnerability fields.
    [
      'a PSR record with the platform\'s effective_to, description and additional information validates',
      (a) => Object.assign(a.customers[0].psr[0], { effective_to: '2027-06-01T00:00:00Z', description: 'Dialysis at home', additional_information: 'Call before any visit' }),
      [],
    ],
    ['a PSR record ending the day it starts validates', (a) => (a.customers[0].psr[0].effective_to = '2021-06-01'), []],
    ['a PSR record ending before it starts is psr_end_before_start', (a) => (a.customers[0].psr[0].effective_to = '2021-05-31'), ['psr_end_before_start@customers.0.psr.0.effective_to']],
    [
      'two date-times compare as instants: psr_end_before_start',
      (a) => Object.assign(a.customers[0].psr[0], { effective_from: '2021-06-01T10:00:00+01:00', effective_to: '2021-06-01T08:59:59Z' }),
      ['psr_end_before_start@customers.0.psr.0.effective_to'],
    ],
    ['a PSR effective_to that is no date is invalid_date', (a) => (a.customers[0].psr[0].effective_to = '01/06/2027'), ['invalid_date@customers.0.psr.0.effective_to']],
    ['the PSR password validates', (a) => (a.customers[0].customer_preferences.partner_password = 'Bluebell7'), []],
    ['a PSR password over 10 characters is max_length', (a) => (a.customers[0].customer_preferences.partner_password = 'Bluebell789'), ['max_length@customers.0.customer_preferences.partner_password']],
    ['a blank PSR password is blank', (a) => (a.customers[0].customer_preferences.partner_password = ''), ['blank@customers.0.customer_preferences.partner_password']],
    [
      'vulnerability and authority fields validate',
      (a) => Object.assign(a.customers[1], { unable_to_read_meters: true, deceased: 'Reported', role: 'POWER_OF_ATTORNEY', account_roles: ['POWER_OF_ATTORNEY', 'LOA_LEVEL_2'], portfolio_roles: ['CARER'] }),
      [],
    ],
    ['an unknown role is invalid_choice', (a) => (a.customers[0].role = 'LANDLORD'), ['invalid_choice@customers.0.role']],
    ['a role given twice is duplicate_customer_role', (a) => (a.customers[0].account_roles = ['CARER', 'EXECUTOR', 'CARER']), ['duplicate_customer_role@customers.0.account_roles.2']],
    ['a portfolio role given twice is duplicate_customer_role', (a) => (a.customers[0].portfolio_roles = ['ADMIN', 'ADMIN']), ['duplicate_customer_role@customers.0.portfolio_roles.1']],
    ['deceased takes the platform\'s values only', (a) => (a.customers[0].deceased = 'Yes'), ['invalid_choice@customers.0.deceased']],
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
    expect(outcome.account.supply_addresses![0].supply_postcode).toBe('SW1A 1AA');
    expect(account.customers[0].mobile).toBe('07911 123456');
    expect(account.billing_postcode).toBe('ls14dy');
  });
});
