import type { RuleContext } from './context';
import { each, given, isRecord, records, root, text, type Json, type KeyOf, type Rec } from './loose';

/**
 * The platform's validators over the Account as a whole (docs/spec/RULES.md, "The platform's
 * fields"), each with the platform's code: fields sent together that the platform takes one at a
 * time, fields a domestic account does not take, and identifiers an account names once. Pure
 * payload rules: none reads configuration or reference data.
 */
export function checkPlatformAccount(ctx: RuleContext): void {
  const a = root(ctx);
  checkCampaigns(ctx);
  checkOneOf(ctx, a);
  if (isDomestic(ctx, a)) checkDomestic(ctx, a);
  checkUniqueIdentifiers(ctx);
}

/** A campaign names exactly one of its `slug` and its `campaign_name`. */
function checkCampaigns(ctx: RuleContext): void {
  for (const [campaign, attr] of each(ctx, 'account_campaigns.*')) {
    const slug = given(campaign, 'slug');
    const name = given(campaign, 'campaign_name');
    if (slug && name) ctx.errors.add('campaign_name_and_slug_provided', `${attr}.campaign_name`, 'A campaign is named by its slug or by its campaign_name, not both.');
    else if (!slug && !name) ctx.errors.add('campaign_name_or_slug_not_provided', attr, 'A campaign needs its slug or its campaign_name.');
  }
}

/** Whether an array field holds at least one item. */
const nonEmpty = <O extends object>(o: O, key: KeyOf<O>): boolean => Array.isArray((o as Json)[key]) && ((o as Json)[key] as unknown[]).length > 0;

const LEGACY_BILLING = ['billing_address1', 'billing_address2', 'billing_address3', 'billing_address4', 'billing_address5', 'billing_postcode', 'billing_delivery_point_identifier'] as const;

/** Account fields of which the platform takes one. */
function checkOneOf(ctx: RuleContext, a: Rec<''>): void {
  const portfolio = a.portfolio;
  if (isRecord(portfolio) && ctx.ok('portfolio') && given(portfolio, 'portfolio_settings') && a.is_portfolio_lead !== true) {
    ctx.errors.add('portfolio_settings_included_when_not_lead', 'portfolio.portfolio_settings', 'Portfolio settings are for the portfolio lead: is_portfolio_lead must be true.');
  }
  if (nonEmpty(a, 'payment_adequacy_changes') && given(a, 'last_payment_review_date')) {
    ctx.errors.add('payment_adequacy_changes_and_last_payment_review_date_provided', 'last_payment_review_date', 'Send payment_adequacy_changes or last_payment_review_date, not both.');
  }
  // A payment plan has no ledger field: it creates its schedule on the account's main ledger, the
  // ledger of a schedule sent without ledger_code.
  if (nonEmpty(a, 'payment_plans') && ctx.ok('payment_plans')) {
    for (const [schedule, attr] of each(ctx, 'payment_schedules.*')) {
      if (!given(schedule, 'ledger_code')) {
        ctx.errors.add('payment_plan_and_payment_schedule_not_allowed_on_same_ledger', attr, 'A payment plan creates the schedule of the main ledger: this schedule, on that ledger too, is not allowed beside it.');
      }
    }
  }
  if (given(a, 'billing_address') && ctx.ok('billing_address')) {
    const legacy = LEGACY_BILLING.find((key) => given(a, key));
    if (legacy !== undefined) ctx.errors.add('billing_address_new_style_and_legacy', legacy, 'Send the billing_address object or the billing_address1… fields, not both.');
  }
  for (const [address, attr] of each(ctx, 'supply_addresses.*')) {
    const admins = address.property_administrators;
    if (Array.isArray(admins) && admins.length > 1) ctx.errors.add('multiple_property_administrators', `${attr}.property_administrators.1`, 'A supply address has at most one property administrator.');
  }
}

/** The platform's domestic account types: DOMESTIC and its vacant and occupier forms. */
function isDomestic(ctx: RuleContext, a: Rec<''>): boolean {
  const type = text(a, 'account_type');
  return type !== undefined && type.startsWith('DOMESTIC') && ctx.ok('account_type');
}

/** What only a business account takes. */
function checkDomestic(ctx: RuleContext, a: Rec<''>): void {
  for (const key of ['business_type', 'company_number'] as const) {
    if (given(a, key)) ctx.errors.add('business_fields_provided_for_domestic_accounts', key, `A domestic account takes no ${key}.`);
  }
  if (given(a, 'account_billing_options')) {
    ctx.errors.add('account_billing_options_provided_for_domestic_accounts', 'account_billing_options', 'Account billing options are for business accounts.');
  }
  for (const [mp, attr] of each(ctx, 'supply_addresses.*.meter_points.*')) {
    for (const key of ['vat_exemptions', 'ccl_exemptions'] as const) {
      if (nonEmpty(mp, key)) ctx.errors.add('tax_exemptions_provided_for_domestic_account', `${attr}.${key}`, 'Tax exemptions are for business accounts.');
    }
  }
}

/** Supply addresses' property_external_identifier, and a portfolio's reference namespaces, each once. */
function checkUniqueIdentifiers(ctx: RuleContext): void {
  const identifiers = new Set<string>();
  for (const [address, attr] of each(ctx, 'supply_addresses.*')) {
    const id = text(address, 'property_external_identifier');
    if (id === undefined) continue;
    if (identifiers.has(id)) ctx.errors.add('duplicate_property_external_identifiers', `${attr}.property_external_identifier`, `Property ${id} is given twice.`);
    identifiers.add(id);
  }
  for (const pattern of ['portfolio', 'business.portfolios.*']) {
    for (const [portfolio, attr] of each(ctx, pattern)) {
      const namespaces = new Set<string>();
      for (const [reference, rAttr] of records(ctx, portfolio, 'portfolio_references', `${attr}.portfolio_references`)) {
        const namespace = text(reference, 'namespace');
        if (namespace === undefined) continue;
        if (namespaces.has(namespace)) ctx.errors.add('duplicate_portfolio_references', `${rAttr}.namespace`, `The portfolio has two ${namespace} references.`);
        namespaces.add(namespace);
      }
    }
  }
}
