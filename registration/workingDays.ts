import Holidays from 'date-holidays';
import { nextDay } from '../account/dates';

/**
 * The working-day calendar of England and Wales: weekends and bank holidays (with their substitute
 * days, and one-off days such as a coronation) are not working days. Registration lead times are
 * counted on it. Dates are `YYYY-MM-DD` strings (account/dates.ts).
 */

// date-holidays knows the gov.uk list, including substitute days and one-off bank holidays.
const calendar = new Holidays('GB', 'ENG');

// 'public' is how date-holidays types UK bank holidays; 'bank' is accepted too in case a later
// data release retypes them. Observances (Mother's Day, Easter Sunday) are working days.
const BANK_HOLIDAY_TYPES = new Set(['public', 'bank']);

const holidaysByYear = new Map<number, ReadonlySet<string>>();

/** The bank holidays of England and Wales in `year`, as `YYYY-MM-DD`; computed once per year. */
export function bankHolidays(year: number): ReadonlySet<string> {
  let days = holidaysByYear.get(year);
  if (!days) {
    days = new Set(
      calendar
        .getHolidays(year)
        .filter((h) => BANK_HOLIDAY_TYPES.has(h.type))
        .map((h) => h.date.slice(0, 10)),
    );
    holidaysByYear.set(year, days);
  }
  return days;
}

export function isBankHoliday(date: string): boolean {
  return bankHolidays(Number(date.slice(0, 4))).has(date);
}

export function isWeekend(date: string): boolean {
  const day = new Date(`${date}T00:00:00Z`).getUTCDay();
  return day === 0 || day === 6;
}

export function isWorkingDay(date: string): boolean {
  return !isWeekend(date) && !isBankHoliday(date);
}

/**
 * The day `days` working days after `date`: each step moves to the next working day, so
 * 2026-12-24 + 1 is 2026-12-29 (25th Christmas, 26th–27th weekend, 28th Boxing Day substitute).
 * Zero days is `date` itself, whatever kind of day it is.
 */
export function addWorkingDays(date: string, days: number): string {
  if (!Number.isInteger(days) || days < 0) throw new RangeError(`working days must be a whole number ≥ 0, got ${days}`);
  let d = date;
  for (let left = days; left > 0; ) {
    d = nextDay(d);
    if (isWorkingDay(d)) left--;
  }
  return d;
}

/** `date` plus `days` calendar days. */
export function addCalendarDays(date: string, days: number): string {
  const [y, m, d] = date.split('-').map(Number);
  return new Date(Date.UTC(y!, m! - 1, d! + days)).toISOString().slice(0, 10);
}
