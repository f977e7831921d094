import { ELEC } from './helpers';
import { elec, errorsAfter, type Mutate } from './mutate';

/**
 * Accounts as the platform's clients send them (issue 50), through the whole validator: what the
 * platform accepts and this service used to refuse, and the platform's refusals this service used
 * to accept, each with its code and attr (docs/spec/RULES.md, docs/platform-compatibility.md).
 */
const GAS = 'supply_addresses.0.meter_points.1';
const instruction = (id: string, ledger?: string) => ({ reference: `REF-${id}`, type: 'DIRECT_DEBIT', vendor: 'BOTTOMLINE_PTX', instruction_identifier: id, ...(ledger ? { ledger_code: ledger } : {}) });
const electricityRate = { standing_charge: '45.12000', registers: [{ unit_rate: '24.50000', rate_type: 'STANDARD' }] };
const topLevel: Mutate = (a) => {
  const [ledger] = a.ledgers;
  delete a.ledgers;
  Object.assign(a, { current_statement_transactions: ledger.current_statement_transactions, last_statement_balance: '-140.20', transfer_balance: '-45.20' });
};

describe('accounts as the platform\'s clients send them', () => {
  it.each<[string, Mutate, string[]]>([
    ['an electricity bespoke rate without unit_rate (its rates are on its registers)', (a) => (elec(a).agreements[0].bespoke_tariff_rates = [electricityRate]), []],
    ['a gas bespoke rate with its unit_rate', (a) => (a.supply_addresses[0].meter_points[1].agreements[0].bespoke_tariff_rates = [{ standing_charge: '30', unit_rate: '6.1' }]), []],
    ['a bespoke rate without its standing charge (both rates require one)', (a) => (elec(a).agreements[0].bespoke_tariff_rates = [{ registers: [] }]), [`required@${ELEC}.agreements.0.bespoke_tariff_rates.0.standing_charge`]],
    ['an electricity bespoke rate without its registers', (a) => (elec(a).agreements[0].bespoke_tariff_rates = [{ standing_charge: '45' }]), [`required@${ELEC}.agreements.0.bespoke_tariff_rates.0.registers`]],
    ['two payment instructions, both with a ledger code', (a) => (a.payment_instructions = [instruction('I-1', 'MAIN'), instruction('I-2', 'MAIN')]), []],
    ['two payment instructions, one with a ledger code', (a) => (a.payment_instructions = [instruction('I-1', 'MAIN'), instruction('I-2')]), ['payment_instructions_ledger_code_uniformity_failed@payment_instructions']],
    ['an account without supply_addresses', (a) => delete a.supply_addresses, []],
    ['a meter point without meters', (a) => delete a.supply_addresses[0].meter_points[1].meters, []],
    ['records without the fields neither the spec nor the platform requires', (a) => {
      a.warm_home_discount = [{}];
      a.payment_schedules = [{ means: 'DD', start_date: '2024-01-03' }];
      a.debts = [{ aged_debt: [{}] }];
      a.supply_addresses[0].property_administrators = [{ email: 'agent@example.org' }];
    }, []],
    ['a payment schedule without its start_date (the platform requires it)', (a) => delete a.payment_schedules[0].start_date, ['required@payment_schedules.0.start_date']],
    ['a PSR record from a date-time without an offset, as a generated client sends it', (a) => (a.customers[0].psr[0].effective_from = '2021-06-01T00:00:00'), []],
    ['a note created at a date-time without an offset', (a) => (a.notes[0].created_at = '2026-06-14T09:31:00'), []],
    ['a date-time without an offset is London time: 00:30 BST is 23:30 UTC, before a 23:45 UTC end', (a) => {
      a.customers[0].psr[0].effective_from = '2021-06-01T00:30:00';
      a.customers[0].psr[0].effective_to = '2021-05-31T23:45:00Z';
    }, []],
    ['a date-time without an offset compares as an instant: ending at 23:15 UTC is before 00:30 BST', (a) => {
      a.customers[0].psr[0].effective_from = '2021-06-01T00:30:00';
      a.customers[0].psr[0].effective_to = '2021-05-31T23:15:00Z';
    }, ['psr_end_before_start@customers.0.psr.0.effective_to']],
    ['a Business with its discriminator', (a) => Object.assign(a, { account_type: 'BUSINESS', business: { enforce_business_contracts_exist: true, business_contract_identifiers: ['BC-1'] } }), []],
    ['a Business discriminator null', (a) => Object.assign(a, { account_type: 'BUSINESS', business: { enforce_business_contracts_exist: null } }), []],
    ['a Business discriminator that is not a boolean', (a) => Object.assign(a, { account_type: 'BUSINESS', business: { enforce_business_contracts_exist: 'yes' } }), ['invalid@business.enforce_business_contracts_exist']],
    ['a portfolio lead without supply addresses', (a) => { delete a.supply_addresses; a.is_portfolio_lead = true; }, []],
    ['a portfolio lead with a supply address', (a) => (a.is_portfolio_lead = true), ['portfolio_lead_has_a_supply_address@supply_addresses']],
    ['a billing_document_identifier on a current statement transaction', (a) => (a.ledgers[0].current_statement_transactions[0].billing_document_identifier = 'BILL-1'), ['billing_document_identifier_not_allowed_for_current_statement_transactions@ledgers.0.current_statement_transactions.0.billing_document_identifier']],
    ['a billing_document_identifier on a historical statement transaction', (a) => (a.ledgers[0].historical_statement_transactions[0].billing_document_identifier = 'BILL-1'), []],
    ['the top-level form whose balances add up (-140.20 + a payment of 95.00 = -45.20)', topLevel, []],
    ['the top-level form whose balances do not add up', (a) => { topLevel(a); a.transfer_balance = '-45.21'; }, ['balance_mismatch_on_transfer_balance@transfer_balance']],
    ['the top-level form: a charge subtracts, a prepay top-up is left out', (a) => {
      topLevel(a);
      a.current_statement_transactions.push({ transaction_id: 'TX-C', transaction_date: '2026-11-04', amount: '10.00', type: 'CHARGE' });
      a.current_statement_transactions.push({ transaction_id: 'TX-P', transaction_date: '2026-11-04', amount: '20.00', type: 'PAYMENT', to_prepay_meter_serial_number: 'G4A12345' });
      a.transfer_balance = '-55.20';
    }, []],
    ['an ACTIVE_NEW preference naming no instruction of the account', (a) => {
      a.payment_instructions = [instruction('I-1')];
      a.payment_preferences = [{ type: 'ACTIVE_NEW', ledger_identifier: 'MAIN', instruction_reference_params: { instruction_identifier: 'I-9' } }];
    }, ['active_new_payment_preference_invalid_instruction_identifier@payment_preferences.0.instruction_reference_params.instruction_identifier']],
  ])('%s', async (_name, mutate, expected) => {
    expect(await errorsAfter(mutate)).toEqual(expected);
  });

  it('a gas bespoke rate still requires its unit_rate', async () => {
    expect(await errorsAfter((a) => (a.supply_addresses[0].meter_points[1].agreements[0].bespoke_tariff_rates = [{ standing_charge: '30' }]))).toEqual([
      `required@${GAS}.agreements.0.bespoke_tariff_rates.0.unit_rate`,
    ]);
  });
});
