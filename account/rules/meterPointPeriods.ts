import type { RuleContext } from './context';
import { records, text, type Json, type Rec } from './loose';
import { meterPoints } from './walk';

/** One dated entry of a meter point's list, with its attr. */
interface Entry {
  from: string;
  to?: string;
  attr: string;
  /** Position in the payload. */
  index: number;
}

/**
 * The platform's rules on the dated lists of an electricity meter point (its validators, docs/spec/RULES.md
 * "Platform fields"); each entry's own end-after-start rule is in periods.ts.
 * - capacity_values and configuration_periods are consecutive: sorted by start, each entry starts on
 *   the day the previous one ends (the platform's words: "the end date of the previous one is the
 *   start date of the next one"), so a gap, an overlap or an entry after an open-ended one is
 *   gaps_or_overlaps_in_periods; an entry ending the day it starts is zero_length_periods.
 * - configuration periods start no later than today (configuration_period_starts_in_future) and the
 *   latest is open-ended (latest_configuration_period_not_open_ended).
 * - vat_exemptions and ccl_exemptions: at most one open-ended (multiple_open_ended_tax_exemptions)
 *   and none overlapping (overlapping_effective_dates_for_tax_exemptions). The platform requires an
 *   exemption to end strictly after it starts, so its end is read as exclusive: one may start on the
 *   day the previous ends.
 * A list with an entry ending before it starts (reported by periods.ts) is not checked as a series.
 */
export function checkMeterPointPeriods(ctx: RuleContext): void {
  for (const { mp: typed, attr } of meterPoints(ctx)) {
    const mp = typed as unknown as Rec<'supply_addresses.*.meter_points.*'>;
    checkConsecutive(ctx, entries(ctx, mp, 'capacity_values', attr, 'effective_from_date', 'effective_to_date'));
    const configuration = entries(ctx, mp, 'configuration_periods', attr, 'effective_from_date', 'effective_to_date');
    for (const e of configuration ?? []) {
      if (e.from > ctx.today) ctx.errors.add('configuration_period_starts_in_future', `${e.attr}.effective_from_date`, 'A configuration period starts in the future.');
    }
    if (configuration !== undefined && configuration.length > 0) {
      const latest = configuration[configuration.length - 1];
      if (latest.to !== undefined) {
        ctx.errors.add('latest_configuration_period_not_open_ended', `${latest.attr}.effective_to_date`, 'The latest configuration period must be open-ended (no effective_to_date).');
      }
    }
    checkConsecutive(ctx, configuration);
    checkTaxExemptions(ctx, entries(ctx, mp, 'vat_exemptions', attr, 'effective_from', 'effective_to'));
    checkTaxExemptions(ctx, entries(ctx, mp, 'ccl_exemptions', attr, 'effective_from', 'effective_to'));
  }
}

/** The entries of a list sorted by start (payload order among equal starts); undefined when absent or when one ends before it starts. */
function entries(ctx: RuleContext, mp: Json, list: string, mpAttr: string, fromKey: string, toKey: string): Entry[] | undefined {
  if (!Array.isArray(mp[list])) return undefined; // most meter points: none of these lists
  const out: Entry[] = [];
  for (const [record, attr, index] of records(ctx, mp, list, `${mpAttr}.${list}`)) {
    const from = text(record, fromKey);
    if (from === undefined) continue;
    const to = text(record, toKey);
    if (to !== undefined && to < from) return undefined;
    out.push({ from, to, attr, index });
  }
  // Array.prototype.sort is stable: equal starts keep payload order.
  return out.sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0));
}

function checkConsecutive(ctx: RuleContext, list: Entry[] | undefined): void {
  if (list === undefined) return;
  for (let n = 0; n < list.length; n++) {
    const e = list[n];
    if (e.to === e.from) ctx.errors.add('zero_length_periods', `${e.attr}.effective_to_date`, 'This period ends the day it starts.');
    if (n > 0 && list[n - 1].to !== e.from) {
      ctx.errors.add('gaps_or_overlaps_in_periods', `${e.attr}.effective_from_date`, 'Each period must start on the day the previous one ends, without gaps or overlaps.');
    }
  }
}

function checkTaxExemptions(ctx: RuleContext, list: Entry[] | undefined): void {
  if (list === undefined) return;
  // The second open-ended exemption in payload order, as for AQs.
  const open = list.filter((e) => e.to === undefined).sort((a, b) => a.index - b.index);
  if (open.length > 1) {
    ctx.errors.add('multiple_open_ended_tax_exemptions', open[1].attr, 'More than one tax exemption has no end date.');
    return; // the overlap is that one
  }
  let latestEnd: string | undefined; // the latest end among earlier (by start) exemptions
  let openSeen = false;
  for (const e of list) {
    if (openSeen || (latestEnd !== undefined && e.from < latestEnd)) {
      ctx.errors.add('overlapping_effective_dates_for_tax_exemptions', `${e.attr}.effective_from`, 'This tax exemption overlaps another.');
    }
    if (e.to === undefined) openSeen = true;
    else if (latestEnd === undefined || e.to > latestEnd) latestEnd = e.to;
  }
}
