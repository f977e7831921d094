import type { Account, Customer } from '../../../account/schema';
import { addDays, dateTime, monthEnd, monthStart, taxYear } from '../dates';
import { randomDigits } from '../identifiers';
import { pence } from '../money';
import { address, person, TOWNS, type Address } from '../people';
import type { Rng } from '../rng';
import { business, commissions, company, feedInTariff, partners, portfolio, type Company } from './business';
import { regionOf, type FullContext, type Json } from './context';
import { fullLedger, type FullLedger } from './ledger';
import { fullSite } from './meterPoints';
import { adequacyChanges, arrears, contributions, debt, deposit, mandate, paymentPreferences, paymentSchedules } from './payments';
import { accountConsents, businessUsers, complaints, fullCustomers, landlord } from './people';

/**
 * A full account: every field path of the platform's Account (account/platformAccount.json; see
 * ./paths.ts for the groups of which one option is sent, and the one path the platform refuses on
 * every account) with realistic UK values — a small business (sole site, dual fuel, solar export
 * under the Feed-in Tariff) sold by a broker, a year or two into supply, in arrears. Typical in
 * volume (one ledger, 12–24 months of monthly bills), full in breadth. Valid against every rule of
 * the service with the default reference data and an Ongoing supplier; deterministic for the same
 * rng state and options.
 */

export interface FullAccountOptions {
  externalAccountNumber: string;
  supplier: string;
  today: string;
  /** Send the spec's ledgers[] (else one of the two forms at random). */
  ledgers?: boolean;
}

/** A GB delivery point identifier: the postcode without its space and a delivery point suffix. */
const dpid = (rng: Rng, postcode: string) => `${postcode.replace(' ', '')}${rng.int(1, 9)}${rng.pick(['A', 'B', 'D', 'E', 'F'])}`;

/** "Wójcik Café Ltd" → "wojcik-cafe": a company's e-mail domain label. */
const domainOf = (name: string) =>
  name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/ (ltd|llp)$/, '')
    .replace(/[^a-z]+/g, '-')
    .replace(/^-|-$/g, '');

function billing(ctx: FullContext, c: Company, site: Address, owner: Json, legacy: boolean): Json {
  const common = {
    billing_name: c.name,
    billing_sub_name: `For the attention of ${owner.given_name} ${owner.family_name}`,
    billing_attention_of: 'Accounts Payable',
    billing_customer_reference: `Energy supply, ${site.lines.filter((l) => l !== '')[0]}`,
    billing_email: `accounts@${domainOf(c.name)}.example.co.uk`,
  };
  if (legacy) {
    const [a1, a2, a3, a4, a5] = site.lines;
    return { ...common, billing_address1: a1, billing_address2: a2, billing_address3: a3, billing_address4: a4, billing_address5: a5, billing_postcode: site.postcode, billing_delivery_point_identifier: dpid(ctx.rng, site.postcode) };
  }
  return {
    ...common,
    billing_address: {
      name: `${owner.given_name} ${owner.family_name}`,
      organization: c.name,
      street_address: site.lines.slice(0, 3).filter((l) => l !== '').join('\n'),
      structured_street_address: null,
      dependent_locality: '',
      locality: ctx.town.town,
      administrative_area: regionOf(ctx).nation,
      postal_code: site.postcode,
      sorting_code: '',
      country: 'GB',
      delivery_point_identifier: `${ctx.rng.int(1, 9)}${randomDigits(ctx.rng, 10)}`,
    },
  };
}

function notes(ctx: FullContext, c: Company): Json[] {
  const bodies = ['Director asked for bills by post as well as by e-mail.', `Letter of authority from ${c.broker} received.`, 'Smart meter booked; previous visit had no access.', 'Arrears discussed; payment plan agreed.'];
  const count = ctx.rng.int(2, 4);
  return bodies.slice(0, count).map((body, n) => {
    const created = addDays(ctx.supplyStart, ctx.rng.int(1, 300));
    return {
      external_id: `NOTE-${ctx.external}-${n + 1}`,
      created_at: dateTime(created, ctx.rng.int(8, 17), ctx.rng.int(0, 59)),
      body,
      ...(n === 0 ? { document_paths: [{ document_path: `/notes/${ctx.external}/letter-${created}.pdf` }] } : {}),
      is_pinned: n === count - 1,
      unpin_at: dateTime(addDays(created, 60), 0, 0),
      is_archived: n === 0,
    };
  });
}

function statements(ctx: FullContext, ledger: FullLedger): Json[] {
  const recent = ledger.bills.slice(-ctx.rng.int(2, 6));
  return recent.map((bill, k) => {
    const yyyymm = bill.from.slice(0, 7).replace('-', '');
    const issued = addDays(bill.to, k === recent.length - 1 ? 2 : ctx.rng.int(1, 4));
    return {
      bill_period_from_date: bill.from,
      bill_period_to_date: bill.to,
      statement_path: `/statements/${bill.from.slice(0, 4)}/${bill.from.slice(5, 7)}/${ctx.external}.pdf`,
      statement_id: `ST-${ctx.external}-${yyyymm}`,
      number: `INV${randomDigits(ctx.rng, 8)}`,
      issued_date: issued > ctx.today ? ctx.today : issued,
      gross_amount: bill.gross,
    };
  });
}

function ledgerFields(ctx: FullContext, ledger: FullLedger, issued: string, topLevel: boolean): Json {
  const statement = {
    current_statement_transactions: ledger.current,
    historical_statement_transactions: ledger.historical,
    last_statement_closing_date: ledger.closing,
    last_statement_balance: pence(ledger.statementBalance),
    last_statement_issue_date: issued,
  };
  return topLevel ? statement : { ledgers: [{ ...statement, ledger_balance: pence(ledger.balance) }] };
}

/**
 * The account's campaign, named by its slug (this service's reference data) or by the platform's
 * campaign_name, one or the other (campaign_name_and_slug_provided).
 */
function campaigns(ctx: FullContext): Json[] {
  const start = addDays(ctx.today, -ctx.rng.int(10, 60));
  const named = ctx.rng.chance(0.5) ? { slug: 'winter-support-2026' } : { campaign_name: 'Small Business Vulnerability' };
  return [{ ...named, campaign_note: 'Enrolled by the collections team.', start_date: start, expiry_date: addDays(start, 90) }];
}

export function fullAccount(rng: Rng, opts: FullAccountOptions): Account {
  const today = opts.today;
  const lastBilled = monthEnd(today, -1);
  const readingMonths = rng.int(12, 24);
  const supplyStart = monthStart(lastBilled, -readingMonths - rng.int(0, 6));
  const town = rng.pick(TOWNS);
  const ctx: FullContext = { rng, today, lastBilled, supplyStart, readingMonths, town, external: opts.externalAccountNumber };
  const site = fullSite(ctx, { today, lastBilled, supplyStart, readingMonths, prepay: false });
  const premises = address(rng, town, rng.int(1, 180));

  const owner = person(rng, town, today, 0);
  const family = person(rng, town, today, 1, rng.chance(0.5) ? owner.family_name : undefined);
  const base: Customer[] = [owner, family].map((p) => ({ ...p, customer_preferences: { opted_into_sms: rng.chance(0.5), opted_into_recommended: true, opted_into_updates: rng.chance(0.6), opted_into_third_parties: false, opted_into_offers: rng.chance(0.3) } }));
  const customers = fullCustomers(ctx, base);
  const firm = company(ctx, owner.family_name);
  const ledger = fullLedger(ctx, site);
  const bills = statements(ctx, ledger);
  const dd = mandate(ctx, firm.name);
  const supplyAddress: Json = {
    supply_address1: premises.lines[0],
    supply_address2: premises.lines[1],
    supply_address3: premises.lines[2],
    supply_address4: premises.lines[3],
    supply_address5: premises.lines[4],
    supply_postcode: premises.postcode,
    supply_delivery_point_identifier: dpid(rng, premises.postcode),
    property_external_identifier: `UPRN-${rng.int(1, 9)}${randomDigits(rng, 11)}`,
    label: `${firm.name}, shop and flat above`,
    is_landlord: false,
    customer_at_supply_address_from_date: addDays(supplyStart, -rng.int(0, 60)),
    customer_at_supply_address_to_date: null,
    primary_place_of_residence_since: addDays(supplyStart, -rng.int(100, 2_000)),
    metadata: [{ key: 'legacy_site_id', value: { id: `S${randomDigits(rng, 6)}`, trading_hours: '06:00-16:00' } }],
    meter_points: site.meterPoints,
    property_administrators: [landlord(ctx)],
  };
  const review = rng.chance(0.5);
  const oneDebt = rng.chance(0.5);
  const account: Json = {
    import_supplier: opts.supplier,
    external_account_number: opts.externalAccountNumber,
    account_type: 'BUSINESS',
    business_type: firm.type,
    company_number: firm.number,
    is_managed: false,
    // A member of its portfolio, not the lead: a lead has no supply address (portfolio_lead_has_a_supply_address),
    // so it sends no portfolio settings either (the lead's: portfolio_settings_included_when_not_lead).
    is_portfolio_lead: false,
    unknown_occupier: false,
    customers,
    ...billing(ctx, firm, premises, customers[0]!, rng.chance(0.5)),
    language_preference: 'en-gb',
    communication_preference: rng.pick(['ONLINE', 'PRINT']),
    document_accessibility: 'LARGE_PRINT',
    sales_channel: 'BROKER',
    sales_subchannel: firm.broker,
    affiliate_subdomain: firm.broker.toLowerCase().split(' ')[0],
    date_of_sale: addDays(supplyStart, -rng.int(21, 60)),
    operations_team_name: 'SME Accounts',
    supply_addresses: [supplyAddress],
    transfer_balance: pence(ledger.balance),
    ...ledgerFields(ctx, ledger, (bills[bills.length - 1]?.issued_date as string | undefined) ?? addDays(lastBilled, 2), rng.chance(0.5) && opts.ledgers !== true),
    last_billed_to_date: lastBilled,
    account_billing_options: { use_industry_billing: false, period_length: 'MONTHLY', period_length_multiplier: 1, period_start_day: 1, period_start_month: Number(supplyStart.slice(5, 7)) },
    next_bill_due_date: addDays(lastBilled, rng.int(28, 33)),
    smart_read_frequency: 'HALF_HOURLY',
    smart_read_cycle_day: 1,
    dd_reference: dd.ddReference,
    payment_instructions: [dd.instruction],
    payment_preferences: paymentPreferences(ctx, site),
    payment_schedules: paymentSchedules(ctx, ledger),
    ...arrears(ctx, ledger),
    ...(review ? { last_payment_review_date: addDays(today, -rng.int(30, 200)) } : { payment_adequacy_changes: adequacyChanges(ctx, ledger, site.electricity.mpan) }),
    deposit_agreements: deposit(ctx),
    contribution_agreements: contributions(ctx),
    ...(oneDebt ? { debt: debt(ctx, ledger) } : { debts: [debt(ctx, ledger)] }),
    dunning_path: { path_name: 'standard', start_date: addDays(today, rng.int(1, 14)) },
    warm_home_discount: [{ tax_year: taxYear(today), account_type: 'CREDIT', group: 'BROADER' }],
    references: [
      { namespace: 'legacy-crm', value: `CRM-${opts.externalAccountNumber}` },
      { namespace: 'legacy-billing', value: `BILL-${opts.externalAccountNumber}` },
    ],
    notes: notes(ctx, firm),
    statements: bills,
    account_campaigns: campaigns(ctx),
    metadata: [{ key: 'legacy_account_segment', value: { segment: 'SME', band: 'MICRO' } }],
    consents: accountConsents(ctx),
    complaints: complaints(ctx, customers[0]!),
    business: business(ctx, firm, businessUsers(customers)),
    portfolio: memberPortfolio(ctx, firm),
    partner_organisations: partners(ctx, firm),
    commission_contracts: commissions(ctx, firm, site),
    fit: feedInTariff(ctx, firm, site, supplyAddress, `FIT-${dd.ddReference}`),
  };
  return account as unknown as Account;
}

/** The portfolio as a member sends it: without the settings, which are the lead's. */
function memberPortfolio(ctx: FullContext, firm: Company): Json {
  const { portfolio_settings: _lead, ...rest } = portfolio(ctx, firm);
  return rest;
}
