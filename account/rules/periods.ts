import { londonToday } from '../dates';
import type { RuleContext } from './context';
import { each, text } from './loose';

/**
 * Whether `to` is before `from`, each a date or a date-time as sent: two date-times compare as
 * instants, otherwise the days compare (a record may start and end on one day).
 */
export function endsBefore(from: string, to: string): boolean {
  if (from.length > 10 && to.length > 10) return Date.parse(to) < Date.parse(from);
  return to.slice(0, 10) < from.slice(0, 10);
}

/** Whether `to` is not after `from` (the same day or instant counts), compared as in endsBefore. */
function endsNotAfter(from: string, to: string): boolean {
  if (from.length > 10 && to.length > 10) return Date.parse(to) <= Date.parse(from);
  return to.slice(0, 10) <= from.slice(0, 10);
}

/** The calendar day in Europe/London of a date-time (a date is its own day); undefined when unreadable. */
export function londonDay(value: string): string | undefined {
  if (value.length === 10) return value;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : londonToday(new Date(ms));
}

/** A record kind with a start and an end: where it sits, its two fields, and what ending too early is. */
interface EndRule {
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
const END_RULES: readonly EndRule[] = [
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

/** Every END_RULES period ends no earlier than it may; the error names the end field. */
export function checkPeriodEnds(ctx: RuleContext): void {
  for (const rule of END_RULES) {
    for (const [record, attr] of each(ctx, rule.pattern)) {
      const from = text(record, rule.from);
      const to = text(record, rule.to);
      if (from === undefined || to === undefined) continue;
      const early = rule.code === 'start_date_same_as_end_date' ? endsNotAfter(from, to) : endsBefore(from, to);
      if (early) ctx.errors.add(rule.code, `${attr}.${rule.to}`, DETAIL[rule.code]);
    }
  }
}
