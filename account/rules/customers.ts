import type { Customer, PropertyAdministrator, SupplyAddress } from '../schema';
import { list, okItems, type RuleContext } from './context';
import { checkEmail, normaliseUkPhone, normaliseUkPostcode } from './contacts';
import { endsBefore } from './periods';

/**
 * Customer and contact rules: phones (normalised to E.164), postcodes (normalised to upper case
 * with one space), emails and test emails, PSR records. Empty strings are "unused" text fields
 * (spec general rule 6) and are not checked.
 */
export function checkCustomers(ctx: RuleContext): void {
  // Platform rule "Validate no customers for unknown occupier".
  if (ctx.account.unknown_occupier === true && ctx.ok('customers') && list(ctx.account.customers).length > 0) {
    ctx.errors.add('customer_with_unknown_occupier', 'customers', 'An unknown-occupier account carries no customers.');
  }
  for (const [customer, attr, i] of okItems(ctx, ctx.account.customers, 'customers')) {
    checkPerson(ctx, customer, attr, ['customers', i]);
    checkPsr(ctx, customer, attr);
    checkRoles(ctx, customer, attr);
  }
  const addresses = list<SupplyAddress>(ctx.account.supply_addresses);
  for (let a = 0; a < addresses.length; a++) {
    const address = addresses[a];
    if (typeof address !== 'object' || address === null) continue;
    const base = `supply_addresses.${a}`;
    if (ctx.ok(`${base}.supply_postcode`) && typeof address.supply_postcode === 'string') {
      checkPostcode(ctx, address.supply_postcode, `${base}.supply_postcode`, ['supply_addresses', a, 'supply_postcode']);
    }
    for (const [admin, attr, k] of okItems(ctx, address.property_administrators, `${base}.property_administrators`)) {
      checkPerson(ctx, admin, attr, ['supply_addresses', a, 'property_administrators', k]);
    }
  }
  const billing = ctx.account.billing_postcode;
  if (billing !== undefined && billing !== '' && ctx.ok('billing_postcode')) {
    checkPostcode(ctx, billing, 'billing_postcode', ['billing_postcode']);
  }
}

function checkPerson(ctx: RuleContext, person: Customer | PropertyAdministrator, attr: string, at: (string | number)[]): void {
  for (const field of ['mobile', 'landline'] as const) {
    const value = person[field];
    if (value === undefined || value === '') continue;
    const normalised = normaliseUkPhone(value);
    if (normalised === null) ctx.errors.add('invalid_phone_number', `${attr}.${field}`, 'Not a valid UK phone number.');
    else if (normalised !== value) ctx.patches.push({ path: [...at, field], value: normalised });
  }
  if (person.email !== undefined && person.email !== '') {
    const verdict = checkEmail(person.email);
    if (verdict === 'invalid_email') ctx.errors.add('invalid_email', `${attr}.email`, 'Not a valid email address.');
    else if (verdict === 'possible_test_email_address') {
      ctx.errors.add('possible_test_email_address', `${attr}.email`, 'This looks like a test email address.');
    }
  }
}

function checkPostcode(ctx: RuleContext, value: string, attr: string, at: (string | number)[]): void {
  const normalised = normaliseUkPostcode(value);
  if (normalised === null) ctx.errors.add('invalid_postcode', attr, 'Not a valid UK postcode.');
  else if (normalised !== value) ctx.patches.push({ path: at, value: normalised });
}

function checkPsr(ctx: RuleContext, customer: Customer, attr: string): void {
  const records = list(customer.psr);
  for (let p = 0; p < records.length; p++) {
    const psr = records[p];
    const pAttr = `${attr}.psr.${p}`;
    const hasElec = psr.elec_industry_code !== undefined;
    const hasGas = psr.gas_industry_code !== undefined;
    if (hasElec === hasGas) {
      ctx.errors.add('psr_industry_code_not_provided', pAttr, 'A PSR record carries exactly one of elec_industry_code and gas_industry_code.');
      continue;
    }
    const field = hasElec ? 'elec_industry_code' : 'gas_industry_code';
    const code = (hasElec ? psr.elec_industry_code : psr.gas_industry_code) as string;
    // Industry flows zero-pad needs codes ("07"); the list holds them unpadded.
    const canonical = /^\d+$/.test(code) ? String(Number(code)) : code;
    if (!ctx.ref.psrNeedsCodes.has(canonical)) {
      ctx.errors.add('psr_invalid_industry_code', `${pAttr}.${field}`, `Unknown PSR needs code ${code}.`);
    }
    if (psr.effective_to !== undefined && endsBefore(psr.effective_from, psr.effective_to)) {
      ctx.errors.add('psr_end_before_start', `${pAttr}.effective_to`, 'A PSR record ends (effective_to) before it starts (effective_from).');
    }
  }
}

/** A person's roles on the account and on its portfolio: each role once per list. */
function checkRoles(ctx: RuleContext, customer: Customer, attr: string): void {
  for (const field of ['account_roles', 'portfolio_roles'] as const) {
    const roles = list(customer[field]);
    const seen = new Set<string>();
    for (let r = 0; r < roles.length; r++) {
      if (seen.has(roles[r])) ctx.errors.add('duplicate_customer_role', `${attr}.${field}.${r}`, `Role ${roles[r]} is given twice.`);
      seen.add(roles[r]);
    }
  }
}
