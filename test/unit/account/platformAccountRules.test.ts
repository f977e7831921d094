import { ELEC } from './helpers';
import { elec, errorsAfter, type Mutate } from './mutate';

/**
 * The platform's account-wide validators (account/rules/platformAccountRules.ts and
 * platformSchedules.ts) through the whole validator: each code on the example account (a domestic
 * one), beside a valid use of the same fields.
 */
const business: Mutate = (a) => (a.account_type = 'BUSINESS');
const adequacy = { created_at: '2026-01-01T00:00:00Z', average_monthly_charge: 1, average_monthly_elec_charge: 1, average_monthly_gas_charge: 1, balance_adjustment: 1, current_balance: 1, existing_direct_debit_payment: 1, new_direct_debit: 1, target_balance: 1 };
const portfolio = (settings: boolean, references = [{ namespace: 'portfolio-label', value: 'Sites' }]) => ({
  billing_name: 'Harbour Row Ltd',
  portfolio_references: references,
  ...(settings ? { portfolio_settings: { collective_billing: true } } : {}),
});
const plan = { accepted_at: '2026-11-01T10:00:00Z', schedule_means: 'DD', strategy_name: 'DEBT_PLAN', payments: [{ payment_date: '2026-12-01', total_amount: 9500, amount_components: [] }] };
const schedule = (fields: object): Mutate => (a) => Object.assign(a.payment_schedules[0], fields);
const instalments = (end: string, ...rows: [string, string][]) => schedule({ end_date: end, instalments: rows.map(([payment_date, amount]) => ({ payment_date, amount })) });
const complaint = (official: object) => ({
  complainant_name: 'Ann Example', complainant_email: 'ann@example.org', created_at: '2026-01-01T00:00:00Z', has_chsr_letter_been_sent: false,
  has_eight_week_letter_been_sent: false, type_of_complaint: 'BILLING', subtype_of_complaint: 'ESTIMATED_BILL', complaint_contacts: [], ...official,
});
const lineItem = (units: string[]) => (a: any) => (a.ledgers[0].current_statement_transactions[0].line_items = [{ start_date: '2026-10-01', end_date: '2026-10-31', net_amount: '10.00', number_of_units: '2', units }]);
const contract = { agent_mpid: 'ABCD', contract_reference: 'C-1' };

describe('the platform\'s account-wide validators, through the validator', () => {
  it.each<[string, Mutate, string[]]>([
    ['a campaign by its name only validates (no reference data read)', (a) => (a.account_campaigns = [{ campaign_name: 'Breathing Space' }]), []],
    ['a campaign by its slug and its name', (a) => (a.account_campaigns[0].campaign_name = 'Carer'), ['campaign_name_and_slug_provided@account_campaigns.0.campaign_name']],
    ['a campaign by neither', (a) => (a.account_campaigns = [{ campaign_note: 'No name' }]), ['campaign_name_or_slug_not_provided@account_campaigns.0']],
    ['one campaign name twice', (a) => (a.account_campaigns = [{ campaign_name: 'Carer' }, { campaign_name: 'Carer' }]), ['duplicate_account_campaigns@account_campaigns.1.campaign_name']],
    // A lead has no supply address (the platform's portfolio_lead_has_a_supply_address): it sends none.
    ['portfolio settings on the lead (without supply addresses) validate', (a) => { delete a.supply_addresses; Object.assign(a, { is_portfolio_lead: true, portfolio: portfolio(true) }); }, []],
    ['a portfolio lead with a supply address', (a) => (a.is_portfolio_lead = true), ['portfolio_lead_has_a_supply_address@supply_addresses']],
    ['portfolio settings not on the lead', (a) => (a.portfolio = portfolio(true)), ['portfolio_settings_included_when_not_lead@portfolio.portfolio_settings']],
    ['a portfolio without settings validates on any account', (a) => (a.portfolio = portfolio(false)), []],
    [
      'a portfolio reference namespace twice',
      (a) => (a.portfolio = portfolio(false, [{ namespace: 'portfolio-label', value: 'A' }, { namespace: 'portfolio-label', value: 'B' }])),
      ['duplicate_portfolio_references@portfolio.portfolio_references.1.namespace'],
    ],
    ['a payment plan beside a schedule of another ledger validates', (a) => (schedule({ ledger_code: 'GAS' })(a), (a.payment_plans = [plan])), []],
    ['a payment plan beside a schedule of the main ledger', (a) => (a.payment_plans = [plan]), ['payment_plan_and_payment_schedule_not_allowed_on_same_ledger@payment_schedules.0']],
    [
      'adequacy changes without a review date validate',
      (a) => {
        delete a.last_payment_review_date;
        a.payment_adequacy_changes = [adequacy];
      },
      [],
    ],
    ['adequacy changes and a review date', (a) => (a.payment_adequacy_changes = [adequacy]), ['payment_adequacy_changes_and_last_payment_review_date_provided@last_payment_review_date']],
    ['a business account with its company number validates', (a) => Object.assign(a, { account_type: 'BUSINESS', business_type: 'LTD', company_number: '01234567' }), []],
    ['a domestic account with a business type', (a) => (a.business_type = 'LTD'), ['business_fields_provided_for_domestic_accounts@business_type']],
    ['a domestic vacant account with a company number', (a) => Object.assign(a, { account_type: 'DOMESTIC_VACANT', company_number: '01234567' }), ['business_fields_provided_for_domestic_accounts@company_number']],
    ['billing options on a business account validate', (a) => Object.assign(a, { account_type: 'BUSINESS', account_billing_options: { period_length: 'MONTHLY' } }), []],
    ['billing options on a domestic account', (a) => (a.account_billing_options = { period_length: 'MONTHLY' }), ['account_billing_options_provided_for_domestic_accounts@account_billing_options']],
    ['a VAT exemption on a business account validates', (a) => (business(a), (elec(a).vat_exemptions = [{ effective_from: '2024-01-01', rate: '0.05' }])), []],
    ['a VAT exemption on a domestic account', (a) => (elec(a).vat_exemptions = [{ effective_from: '2024-01-01', rate: '0.05' }]), [`tax_exemptions_provided_for_domestic_account@${ELEC}.vat_exemptions`]],
    [
      'one property external identifier on two supply addresses',
      (a) => {
        a.supply_addresses[0].property_external_identifier = 'P-1';
        a.supply_addresses.push({ ...a.supply_addresses[0], supply_address1: 'Flat 3', property_external_identifier: 'P-1', meter_points: [] });
      },
      ['duplicate_property_external_identifiers@supply_addresses.1.property_external_identifier'],
    ],
    ['the billing address object and a legacy billing line', (a) => (a.billing_address = { country: 'GB', postal_code: 'LS1 4DY' }), ['billing_address_new_style_and_legacy@billing_address1']],
    [
      'two property administrators',
      (a) => (a.supply_addresses[0].property_administrators = [{ given_name: 'Sam', family_name: 'Lee' }, { given_name: 'Jo', family_name: 'Lee' }]),
      ['multiple_property_administrators@supply_addresses.0.property_administrators.1'],
    ],
    ['instalments adding up within the schedule validate', instalments('2024-12-31', ['2024-01-03', '45.00'], ['2024-02-03', '50.00']), []],
    ['instalments not adding up', instalments('2024-12-31', ['2024-01-03', '45.00']), ['payment_instalments_do_not_sum_to_total@payment_schedules.0.instalments']],
    [
      'an instalment after the schedule ends',
      instalments('2024-01-31', ['2024-01-03', '45.00'], ['2024-02-03', '50.00']),
      ['payment_instalments_date_outside_of_payment_schedule_active_period@payment_schedules.0.instalments.1.payment_date'],
    ],
    ['a delay on bills validates', schedule({ trigger: 'BILL', delay_strategy: 'WORKING_DAYS', delay_days: 3 }), []],
    ['a delay without its days', schedule({ trigger: 'BILL', delay_strategy: 'FIXED' }), ['payment_schedule_delay_strategy_missing_delay_days@payment_schedules.0.delay_days']],
    ['a delay on a regular schedule', schedule({ trigger: 'REGULAR', delay_strategy: 'FIXED', delay_days: 2 }), ['payment_schedule_delay_must_have_bill_trigger@payment_schedules.0.delay_strategy']],
    ['a balance trigger without its threshold', schedule({ trigger: 'BALANCE' }), ['balance_triggered_schedule_missing_threshold@payment_schedules.0.balance_threshold']],
    ['agents\' contracts validate', (a) => (elec(a).agents = { dc_contract: contract }), []],
    ['agents\' contracts and an MPID to appoint', (a) => Object.assign(elec(a), { agents: { dc_contract: contract }, mop_to_appoint: 'MOPX' }), [`agents_and_mpids_to_appoint_provided@${ELEC}.agents`]],
    ['an official complaint in full validates', (a) => (a.complaints = [complaint({ official_reference_number: 'OMB-1', official_entity: 'Energy Ombudsman', official_status: 'OPEN' })]), []],
    ['an official complaint without its status', (a) => (a.complaints = [complaint({ official_reference_number: 'OMB-1', official_entity: 'Energy Ombudsman' })]), ['official_complaint_field_missing@complaints.0.official_status']],
    ['a line item of two units validates', lineItem(['1.00', '2.00']), []],
    ['a line item of three units', lineItem(['1.00', '2.00', '3.00']), ['line_item_units_must_be_two_values@ledgers.0.current_statement_transactions.0.line_items.0.units']],
    ['a transaction tomorrow', (a) => (a.ledgers[0].current_statement_transactions[0].transaction_date = '2026-11-22'), ['transaction_in_future@ledgers.0.current_statement_transactions.0.transaction_date']],
    ['a supply ending today validates', (a) => (elec(a).supply_end_date = '2026-11-21'), []],
    ['a supply ending tomorrow', (a) => (elec(a).supply_end_date = '2026-11-22'), [`future_supply_end_date@${ELEC}.supply_end_date`]],
  ])('%s', async (_name, mutate, expected) => {
    expect(await errorsAfter(mutate)).toEqual(expected);
  });
});
