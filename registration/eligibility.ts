import { addCalendarDays, addWorkingDays } from './workingDays';
import type { CreatedAccount } from '../db/stores/accountStore';

/**
 * Whether and from when one meter point can be marked for registration. Pure: the caller reads the
 * rows and the clock, this decides. Every refusal names what the caller should do next.
 */

/** How far ahead a supply start date may be: the industry accepts a switch date at most 28 days out. */
export const REGISTRATION_HORIZON_DAYS = 28;

/** A meter point as the account store returns it (CreatedAccount.meterPoints). */
export type MeterPointForRegistration = CreatedAccount['meterPoints'][number];

/** The dates every meter point of one request is judged against. */
export interface RegistrationWindow {
  /** Today in Europe/London. */
  today: string;
  /** today + the supplier's lead time in working days of England and Wales. */
  earliest: string;
  /** The last allowed date: today + REGISTRATION_HORIZON_DAYS. */
  latest: string;
  leadDays: number;
}

export function registrationWindow(today: string, leadDays: number): RegistrationWindow {
  return {
    today,
    earliest: addWorkingDays(today, leadDays),
    latest: addCalendarDays(today, REGISTRATION_HORIZON_DAYS),
    leadDays,
  };
}

/** Stable reasons for a refusal (logged and unit-tested; the API shows only the detail). */
export type RefusalReason =
  | 'already_marked_for_other_date'
  | 'erroneous_transfer_in_progress'
  | 'disputed_read_in_progress'
  | 'supplier_mpid_missing'
  | 'supply_start_date_in_past'
  | 'supply_start_date_before_meter_point_supply_start'
  | 'supply_start_date_within_lead_time'
  | 'supply_start_date_beyond_horizon';

export type Decision =
  /** Marked before for this date (or no date was asked for): success again, nothing new written. */
  | { kind: 'already_marked'; supplyStartDate: string }
  | { kind: 'mark'; supplyStartDate: string; supplierMpid: string }
  | { kind: 'refuse'; reason: RefusalReason; detail: string };

/** The earliest valid supply start date of this meter point: the window's, never before its own. */
export function earliestFor(mp: MeterPointForRegistration, w: RegistrationWindow): string {
  return mp.supplyStartDate && mp.supplyStartDate > w.earliest ? mp.supplyStartDate : w.earliest;
}

const refuse = (reason: RefusalReason, detail: string): Decision => ({ kind: 'refuse', reason, detail });

/**
 * @param requested the caller's supply_start_date, or null for the earliest valid date
 * @param markedFrom the date this meter point is already marked from, or null
 * @param supplierMpid the import supplier's market participant id, or null
 */
export function decideRegistration(
  mp: MeterPointForRegistration,
  requested: string | null,
  markedFrom: string | null,
  supplierMpid: string | null,
  w: RegistrationWindow,
): Decision {
  // A meter point is registered once: a repeat for the same date (or for "the earliest", which the
  // existing mark already answered) is success; any other date is refused, never re-marked.
  if (markedFrom !== null) {
    if (requested === null || requested === markedFrom) return { kind: 'already_marked', supplyStartDate: markedFrom };
    return refuse(
      'already_marked_for_other_date',
      `already marked for registration from ${markedFrom}; a meter point is marked once: repeat the request with supply_start_date=${markedFrom} (or without supply_start_date) to confirm it, or ask the operator to change it`,
    );
  }
  if (mp.etInProgress) {
    return refuse('erroneous_transfer_in_progress', 'an erroneous transfer is in progress on this meter point; send the registration flows again once it is resolved');
  }
  if (mp.drInProgress) {
    return refuse('disputed_read_in_progress', 'a disputed read is in progress on this meter point; send the registration flows again once it is resolved');
  }
  const mpid = supplierMpid ?? mp.mpid;
  if (!mpid) {
    return refuse('supplier_mpid_missing', 'no supplier market participant id: neither the import supplier nor the meter point has one; ask the operator to set the import supplier\'s market participant id');
  }

  const earliest = earliestFor(mp, w);
  if (requested === null) {
    if (earliest > w.latest) {
      return refuse(
        'supply_start_date_beyond_horizon',
        `the meter point's supply start date ${earliest} is more than ${REGISTRATION_HORIZON_DAYS} days ahead (latest allowed ${w.latest}); send the registration flows again nearer that date`,
      );
    }
    return { kind: 'mark', supplyStartDate: earliest, supplierMpid: mpid };
  }
  if (requested < w.today) {
    return refuse('supply_start_date_in_past', `supply start date ${requested} is in the past; send a date from ${earliest} to ${w.latest}, or omit supply_start_date for the earliest valid date`);
  }
  if (mp.supplyStartDate && requested < mp.supplyStartDate) {
    return refuse(
      'supply_start_date_before_meter_point_supply_start',
      `supply start date ${requested} is before the meter point's own supply start date ${mp.supplyStartDate}; send a date from ${earliest} onwards`,
    );
  }
  if (requested < w.earliest) {
    return refuse(
      'supply_start_date_within_lead_time',
      `supply start date ${requested} is earlier than the earliest valid supply start date ${w.earliest} (${w.leadDays} working days' notice); send a date from ${w.earliest}, or omit supply_start_date`,
    );
  }
  if (requested > w.latest) {
    return refuse(
      'supply_start_date_beyond_horizon',
      `supply start date ${requested} is more than ${REGISTRATION_HORIZON_DAYS} days ahead (latest allowed ${w.latest}); send the registration flows again nearer the date`,
    );
  }
  return { kind: 'mark', supplyStartDate: requested, supplierMpid: mpid };
}
