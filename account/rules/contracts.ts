import type { RuleContext } from './context';
import { each, isRecord, records, root, text, type Json } from './loose';
import { londonDay } from './periods';
import { isValidMpan, isValidMprn } from './supplyPointIds';

/**
 * Rules of the platform's commission contracts, contribution scheme agreements and deposit
 * agreements (docs/spec/RULES.md, "Platform fields"); the order of their start and end is checked
 * in periods.ts.
 */
export function checkContracts(ctx: RuleContext): void {
  checkCommissionContracts(ctx);
  checkContributionAgreements(ctx);
  checkDepositAgreements(ctx);
}

/**
 * A commission contract's `mpxn` is a valid MPAN or MPRN (the platform's invalid_supply_point_identifier)
 * and one of the account's own meter points (commission_contract_mpxn_not_found): the contract
 * uplifts the rates of a supply this account takes.
 */
function checkCommissionContracts(ctx: RuleContext): void {
  let identifiers: Set<string> | undefined;
  for (const [contract, attr] of each(ctx, 'commission_contracts.*')) {
    const mpxn = text(contract, 'mpxn');
    if (mpxn === undefined) continue;
    identifiers ??= meterPointIdentifiers(ctx);
    if (identifiers.has(mpxn)) continue;
    if (!isValidMpan(mpxn) && !isValidMprn(mpxn)) ctx.errors.add('invalid_supply_point_identifier', `${attr}.mpxn`, 'Not a valid MPAN core or MPRN.');
    else ctx.errors.add('commission_contract_mpxn_not_found', `${attr}.mpxn`, `No meter point of the account has the identifier ${mpxn}.`);
  }
}

/** Every meter point identifier of the payload, shape errors or not: a meter point with one still names its supply. */
function meterPointIdentifiers(ctx: RuleContext): Set<string> {
  const ids = new Set<string>();
  const addresses = root(ctx).supply_addresses;
  for (const address of Array.isArray(addresses) ? addresses : []) {
    const mps = isRecord(address) ? address.meter_points : undefined;
    for (const mp of Array.isArray(mps) ? mps : []) {
      if (isRecord(mp) && typeof mp.identifier === 'string') ids.add(mp.identifier);
    }
  }
  return ids;
}

/** A date range; `to` undefined: open-ended. */
interface Range {
  from: string;
  to?: string;
  attr: string;
}

/**
 * Contribution scheme agreements, by the platform's validators: each period within its
 * agreement's active period (starting no earlier, invalid_contribution_period_start_date; ending no
 * later, invalid_contribution_period_end_date), the periods of an agreement not overlapping (a
 * period's end_date is exclusive, the platform says: one may start on the day the previous ends;
 * overlapping_contribution_periods), and no two agreements of one scheme overlapping (active
 * periods are inclusive at both ends; overlapping_contribution_agreements).
 */
function checkContributionAgreements(ctx: RuleContext): void {
  const byScheme = new Map<string, Range[]>();
  for (const [agreement, attr] of each(ctx, 'contribution_agreements.*')) {
    const start = text(agreement, 'active_period_start_date');
    const end = text(agreement, 'active_period_end_date');
    checkContributionPeriods(ctx, agreement, attr, start, end);
    const scheme = text(agreement, 'scheme');
    if (scheme === undefined || start === undefined || (end !== undefined && end < start)) continue;
    const ranges = byScheme.get(scheme) ?? [];
    ranges.push({ from: start, to: end, attr });
    byScheme.set(scheme, ranges);
  }
  for (const ranges of byScheme.values()) {
    ranges.sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0));
    let latestEnd: string | undefined;
    let openSeen = false;
    for (let n = 0; n < ranges.length; n++) {
      const r = ranges[n];
      if (n > 0 && (openSeen || (latestEnd !== undefined && r.from <= latestEnd))) {
        ctx.errors.add('overlapping_contribution_agreements', `${r.attr}.active_period_start_date`, 'This agreement overlaps another agreement of the same scheme.');
      }
      if (r.to === undefined) openSeen = true;
      else if (latestEnd === undefined || r.to > latestEnd) latestEnd = r.to;
    }
  }
}

function checkContributionPeriods(ctx: RuleContext, agreement: Json, attr: string, start: string | undefined, end: string | undefined): void {
  const periods: Range[] = [];
  for (const [period, pAttr] of records(ctx, agreement, 'periods', `${attr}.periods`)) {
    const from = text(period, 'start_date');
    const to = text(period, 'end_date');
    if (from !== undefined && start !== undefined && from < start) {
      ctx.errors.add('invalid_contribution_period_start_date', `${pAttr}.start_date`, 'The period starts before its agreement\'s active period.');
    }
    if (to !== undefined && end !== undefined && to > end) {
      ctx.errors.add('invalid_contribution_period_end_date', `${pAttr}.end_date`, 'The period ends after its agreement\'s active period.');
    }
    if (from !== undefined && to !== undefined && to >= from) periods.push({ from, to, attr: pAttr });
  }
  periods.sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0));
  let latestEnd: string | undefined;
  for (const p of periods) {
    if (latestEnd !== undefined && p.from < latestEnd) {
      ctx.errors.add('overlapping_contribution_periods', `${p.attr}.start_date`, 'This contribution period overlaps another of its agreement.');
    }
    if (latestEnd === undefined || p.to! > latestEnd) latestEnd = p.to;
  }
}

/**
 * A deposit agreement's last_interest_date only once it is fulfilled (last_interest_date_not_allowed),
 * and not before the day it was fulfilled (its London day; fulfilled_at_greater_than_last_interest_date).
 */
function checkDepositAgreements(ctx: RuleContext): void {
  for (const [deposit, attr] of each(ctx, 'deposit_agreements.*')) {
    const lastInterest = text(deposit, 'last_interest_date');
    if (lastInterest === undefined) continue;
    const fulfilled = text(deposit, 'fulfilled_at');
    if (fulfilled === undefined) {
      ctx.errors.add('last_interest_date_not_allowed', `${attr}.last_interest_date`, 'Interest is calculated only on a fulfilled deposit: give fulfilled_at or no last_interest_date.');
      continue;
    }
    const fulfilledDay = londonDay(fulfilled);
    if (fulfilledDay !== undefined && fulfilledDay > lastInterest) {
      ctx.errors.add('fulfilled_at_greater_than_last_interest_date', `${attr}.last_interest_date`, 'The last interest date is before the deposit was fulfilled.');
    }
  }
}
