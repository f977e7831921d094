import { PLATFORM_ACCOUNT } from '../../../account/platformAccount';

/**
 * Which field paths of the platform's Account (account/platformAccount.json) an account carries,
 * and the choices that keep a full account from carrying all of them at once.
 */

export interface Alternative {
  name: string;
  /** The platform's code refusing two options on one account. */
  why: string;
  /** Option → the paths (and everything under them) it brings. */
  options: Record<string, readonly string[]>;
}

/**
 * Groups of fields of which an account sends one option: a full account picks one per group (at
 * random), so a book of full accounts carries each option. `ledgers` is the spec's form of the
 * platform's top-level ledger: its paths are the platform's under `ledgers.*.`.
 */
export const ALTERNATIVES: readonly Alternative[] = [
  {
    name: 'ledger form',
    why: 'one ledger at the top of the Account (the platform) or ledgers[] (the spec), not both',
    options: {
      'top level': ['current_statement_transactions', 'historical_statement_transactions', 'last_statement_balance', 'last_statement_closing_date', 'last_statement_issue_date'],
      'ledgers[]': ['ledgers'],
    },
  },
  { name: 'debt', why: 'debt_and_debts_are_defined', options: { debt: ['debt'], 'debts[]': ['debts'] } },
  {
    name: 'billing address',
    why: 'billing_address_new_style_and_legacy',
    options: {
      legacy: ['billing_address1', 'billing_address2', 'billing_address3', 'billing_address4', 'billing_address5', 'billing_postcode', 'billing_delivery_point_identifier'],
      billing_address: ['billing_address'],
    },
  },
  { name: 'campaign', why: 'campaign_name_and_slug_provided', options: { slug: ['account_campaigns.*.slug'], 'campaign name': ['account_campaigns.*.campaign_name'] } },
  {
    name: 'payment review',
    why: 'payment_adequacy_changes_and_last_payment_review_date_provided',
    options: { 'adequacy changes': ['payment_adequacy_changes'], 'last review date': ['last_payment_review_date'] },
  },
];

/**
 * Platform paths no full account carries because the platform refuses them on any account (or, for
 * the portfolio settings, on any account with a supply address), with its code. (Historical
 * transactions carry `billing_document_identifier`; business portfolios carry their settings.)
 */
export const NEVER_CARRIED: Readonly<Record<string, string>> = {
  'current_statement_transactions.*.billing_document_identifier': 'billing_document_identifier_not_allowed_for_current_statement_transactions',
  // Settings are the lead's, and a lead has no supply address: a full account, with its supplies, is a member.
  'portfolio.portfolio_settings': 'portfolio_lead_has_a_supply_address',
  'portfolio.portfolio_settings.collective_billing': 'portfolio_lead_has_a_supply_address',
  'portfolio.portfolio_settings.collective_payments': 'portfolio_lead_has_a_supply_address',
  'portfolio.portfolio_settings.delegate_billing_schedule_to_children': 'portfolio_lead_has_a_supply_address',
  'portfolio.portfolio_settings.send_collective_bill_constituent_messages': 'portfolio_lead_has_a_supply_address',
};

/** Whether `path` is `prefix` or lies under it. */
export function under(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}.`) || path.startsWith(`${prefix}*`);
}

/** Every proper prefix of a platform path: where the walk may go deeper. */
const CONTAINERS = new Set<string>(['ledgers', 'ledgers.*']);
for (const path of Object.keys(PLATFORM_ACCOUNT)) {
  const parts = path.split('.');
  for (let i = 1; i < parts.length; i++) CONTAINERS.add(parts.slice(0, i).join('.'));
}

/** A path under `ledgers.*.` as the platform's top-level path it stands for. */
const platformPathOf = (path: string) => (path.startsWith('ledgers.*.') ? path.slice('ledgers.*.'.length) : path);

export interface AccountPaths {
  /** Platform paths the account carries (under ledgers[] counted as the top-level ones). */
  platform: Set<string>;
  /** The account's other paths: the spec's own (ledgers, ledger_balance, bank details…). */
  other: Set<string>;
  /** Every path as sent, `*` for an array item. */
  raw: Set<string>;
}

/**
 * The field paths of an account (`*` for an array item). The walk stops at the platform's leaves:
 * inside a free-form value (`metadata.*.value`, `params`, `details`…) keys are data, not fields.
 */
export function accountPaths(account: unknown): AccountPaths {
  const out: AccountPaths = { platform: new Set(), other: new Set(), raw: new Set() };
  const walk = (value: unknown, path: string) => {
    if (Array.isArray(value)) {
      const item = `${path}.*`;
      if (CONTAINERS.has(platformPathOf(item)) || CONTAINERS.has(item)) for (const v of value) walk(v, item);
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    for (const [key, v] of Object.entries(value)) {
      if (v === undefined) continue;
      const p = path === '' ? key : `${path}.${key}`;
      const platformPath = platformPathOf(p);
      out.raw.add(p);
      (PLATFORM_ACCOUNT[platformPath] ? out.platform : out.other).add(PLATFORM_ACCOUNT[platformPath] ? platformPath : p);
      if (CONTAINERS.has(platformPath) || CONTAINERS.has(p)) walk(v, p);
    }
  };
  walk(account, '');
  return out;
}
