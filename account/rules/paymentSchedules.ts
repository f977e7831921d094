import type { PaymentSchedule } from '../schema';
import { okItems, type RuleContext } from './context';

/** When a schedule ends: the platform's `end_date`, else `debt_repayment_end_date`; undefined: open-ended. */
const endOf = (s: PaymentSchedule): string | undefined => s.end_date ?? s.debt_repayment_end_date;

/**
 * Payment schedule rules. A schedule ends on the platform's `end_date` when it has one, else on
 * `debt_repayment_end_date`, and is open-ended otherwise. Overlaps are found in one
 * pass over the schedules sorted by start date (O(n log n)).
 */
export function checkPaymentSchedules(ctx: RuleContext): void {
  const schedules: [PaymentSchedule, string][] = [];
  let openEnded = 0;
  for (const [schedule, attr] of okItems(ctx, ctx.account.payment_schedules, 'payment_schedules')) {
    schedules.push([schedule, attr]);
    const end = endOf(schedule);
    if (schedule.is_debt_repayment_plan === true && schedule.debt_repayment_end_date === undefined) {
      ctx.errors.add('debt_repayment_missing_end_date', `${attr}.debt_repayment_end_date`, 'A debt repayment plan needs an end date.');
    }
    for (const field of ['debt_repayment_end_date', 'end_date'] as const) {
      const date = schedule[field];
      if (date !== undefined && date < schedule.start_date) ctx.errors.add('start_date_later_than_end_date', `${attr}.${field}`, 'The end date is before the start date.');
    }
    if (end === undefined) {
      openEnded++;
      if (openEnded === 2) ctx.errors.add('multiple_open_ended_payment_schedules', attr, 'More than one payment schedule has no end date.');
    }
  }
  schedules.sort((a, b) => (a[0].start_date < b[0].start_date ? -1 : a[0].start_date > b[0].start_date ? 1 : 0));
  let seenAny = false;
  let openSeen = false; // an earlier schedule never ends
  let latestEnd: string | undefined; // latest end date among earlier finite schedules
  for (const [schedule, attr] of schedules) {
    const end = endOf(schedule);
    if (seenAny) {
      // Two open-ended schedules are reported as multiple_open_ended_payment_schedules instead.
      const overlaps = openSeen ? end !== undefined : latestEnd !== undefined && latestEnd >= schedule.start_date;
      if (overlaps) ctx.errors.add('payment_schedule_date_overlaps', `${attr}.start_date`, 'This payment schedule overlaps another.');
    }
    seenAny = true;
    if (end === undefined) openSeen = true;
    else if (latestEnd === undefined || end > latestEnd) latestEnd = end;
  }
  const review = ctx.account.last_payment_review_date;
  if (review !== undefined && ctx.ok('last_payment_review_date') && review > ctx.today) {
    ctx.errors.add('last_payment_review_date_is_future_dated', 'last_payment_review_date', 'The last payment review date is in the future.');
  }
}
