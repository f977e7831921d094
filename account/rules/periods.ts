import { instantOf, londonToday } from '../dates';
import type { RuleContext } from './context';
import { isRecord, text, type Json } from './loose';

/**
 * Whether `to` is before `from`, each a date or a date-time as sent: two date-times compare as
 * instants, otherwise the days compare (a record may start and end on one day).
 */
export function endsBefore(from: string, to: string): boolean {
  if (from.length > 10 && to.length > 10) return instantOf(to) < instantOf(from);
  return to.slice(0, 10) < from.slice(0, 10);
}

/** Whether `to` is not after `from` (the same day or instant counts), compared as in endsBefore. */
function endsNotAfter(from: string, to: string): boolean {
  if (from.length > 10 && to.length > 10) return instantOf(to) <= instantOf(from);
  return to.slice(0, 10) <= from.slice(0, 10);
}

/** The calendar day in Europe/London of a date-time (a date is its own day); undefined when unreadable. */
export function londonDay(value: string): string | undefined {
  if (value.length === 10) return value;
  const ms = instantOf(value);
  return Number.isNaN(ms) ? undefined : londonToday(new Date(ms));
}

/** A record kind with a start and an end: where it sits, its two fields, and what ending too early is. */
export interface EndRule {
  pattern: string;
  from: string;
  to: string;
  /** start_date_same_as_end_date: the end must be strictly after the start (the platform's tax exemptions, campaigns). */
  code: 'start_date_later_than_end_date' | 'start_date_same_as_end_date' | 'note_unpin_at_earlier_than_creation_date';
}

const MP = 'supply_addresses.*.meter_points.*';

/**
 * The platform's fields that end a period, each with its start (docs/spec/RULES.md, "Platform
 * fields"). The codes and the strictness are the platform's validators' where it documents one;
 * the supply address's and the deposit's order are this service's (no platform validator; the same
 * meaning, so the same code). Periods of the spec's fields (agreements, AQs, payment schedules,
 * statements, PSR records) are checked with their other rules.
 */
export const END_RULES: readonly EndRule[] = [
  { pattern: 'supply_addresses.*', from: 'customer_at_supply_address_from_date', to: 'customer_at_supply_address_to_date', code: 'start_date_later_than_end_date' },
  { pattern: 'supply_addresses.*.property_administrators.*', from: 'effective_from', to: 'effective_to', code: 'start_date_later_than_end_date' },
  { pattern: MP, from: 'supply_start_date', to: 'supply_end_date', code: 'start_date_later_than_end_date' },
  { pattern: `${MP}.capacity_values.*`, from: 'effective_from_date', to: 'effective_to_date', code: 'start_date_later_than_end_date' },
  { pattern: `${MP}.configuration_periods.*`, from: 'effective_from_date', to: 'effective_to_date', code: 'start_date_later_than_end_date' },
  { pattern: `${MP}.vat_exemptions.*`, from: 'effective_from', to: 'effective_to', code: 'start_date_same_as_end_date' },
  { pattern: `${MP}.ccl_exemptions.*`, from: 'effective_from', to: 'effective_to', code: 'start_date_same_as_end_date' },
  { pattern: `${MP}.meters.*`, from: 'installed_on', to: 'removed_on', code: 'start_date_later_than_end_date' },
  { pattern: 'commission_contracts.*', from: 'effective_from', to: 'effective_to', code: 'start_date_later_than_end_date' },
  { pattern: 'contribution_agreements.*', from: 'active_period_start_date', to: 'active_period_end_date', code: 'start_date_later_than_end_date' },
  { pattern: 'contribution_agreements.*.periods.*', from: 'start_date', to: 'end_date', code: 'start_date_later_than_end_date' },
  { pattern: 'deposit_agreements.*', from: 'accepted_at', to: 'fulfilled_at', code: 'start_date_later_than_end_date' },
  { pattern: 'partner_organisations.*', from: 'valid_from', to: 'valid_to', code: 'start_date_later_than_end_date' },
  { pattern: 'account_campaigns.*', from: 'start_date', to: 'expiry_date', code: 'start_date_same_as_end_date' },
  { pattern: 'notes.*', from: 'created_at', to: 'unpin_at', code: 'note_unpin_at_earlier_than_creation_date' },
  { pattern: 'portfolio.notes.*', from: 'created_at', to: 'unpin_at', code: 'note_unpin_at_earlier_than_creation_date' },
  { pattern: 'business.portfolios.*.notes.*', from: 'created_at', to: 'unpin_at', code: 'note_unpin_at_earlier_than_creation_date' },
];

const DETAIL: Record<EndRule['code'], string> = {
  start_date_later_than_end_date: 'The end date is before the start date.',
  start_date_same_as_end_date: 'The end date must be after the start date.',
  note_unpin_at_earlier_than_creation_date: 'unpin_at is before created_at.',
};

/** END_RULES as a tree of the Account's paths, so that one walk visits each record once. */
interface Node {
  rules: EndRule[];
  /** By key: whether its value is an array of records (a `*` follows), and the node of those records. */
  children: Map<string, { array: boolean; node: Node }>;
}

function tree(rules: readonly EndRule[]): Node {
  const top: Node = { rules: [], children: new Map() };
  for (const rule of rules) {
    const parts = rule.pattern.split('.');
    let node = top;
    for (let p = 0; p < parts.length; p++) {
      const array = parts[p + 1] === '*';
      let edge = node.children.get(parts[p]);
      if (edge === undefined) node.children.set(parts[p], (edge = { array, node: { rules: [], children: new Map() } }));
      node = edge.node;
      if (array) p++;
    }
    node.rules.push(rule);
  }
  return top;
}

const END_TREE = tree(END_RULES);

/** Every END_RULES period ends no earlier than it may; the error names the end field. */
export function checkPeriodEnds(ctx: RuleContext): void {
  visit(ctx, ctx.account as unknown as Json, END_TREE, '');
}

function visit(ctx: RuleContext, record: Json, node: Node, attr: string): void {
  for (const rule of node.rules) {
    const from = text(record, rule.from);
    const to = text(record, rule.to);
    if (from === undefined || to === undefined) continue;
    const early = rule.code === 'start_date_same_as_end_date' ? endsNotAfter(from, to) : endsBefore(from, to);
    if (early) ctx.errors.add(rule.code, `${attr}.${rule.to}`, DETAIL[rule.code]);
  }
  for (const [key, { array, node: child }] of node.children) {
    const value = record[key];
    if (value === undefined || value === null) continue;
    const at = attr === '' ? key : `${attr}.${key}`;
    if (!ctx.ok(at)) continue;
    if (!array) {
      if (isRecord(value)) visit(ctx, value, child, at);
      continue;
    }
    if (!Array.isArray(value)) continue;
    for (let i = 0; i < value.length; i++) {
      const itemAt = `${at}.${i}`;
      if (isRecord(value[i]) && ctx.ok(itemAt)) visit(ctx, value[i] as Json, child, itemAt);
    }
  }
}
