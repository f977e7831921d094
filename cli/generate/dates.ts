/** Calendar arithmetic on `YYYY-MM-DD` strings (UTC dates: no time zone can shift a day). */

function parse(date: string): Date {
  const [y, m, d] = date.split('-').map(Number);
  return new Date(Date.UTC(y!, m! - 1, d!));
}

function format(d: Date): string {
  return d.toISOString().slice(0, 10);
}

export function addDays(date: string, days: number): string {
  const d = parse(date);
  d.setUTCDate(d.getUTCDate() + days);
  return format(d);
}

/** The last day of the month `months` after the month of `date` (negative: before). */
export function monthEnd(date: string, months = 0): string {
  const d = parse(date);
  return format(new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months + 1, 0)));
}

/** The first day of the month `months` after the month of `date`. */
export function monthStart(date: string, months = 0): string {
  const d = parse(date);
  return format(new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1)));
}

/** Day `day` (1–28) of the month `months` after the month of `date`. */
export function dayOfMonth(date: string, months: number, day: number): string {
  const d = parse(date);
  return format(new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, day)));
}

export function daysBetween(from: string, to: string): number {
  return Math.round((parse(to).getTime() - parse(from).getTime()) / 86_400_000);
}

export function yearOf(date: string): number {
  return Number(date.slice(0, 4));
}

/** A datetime on `date` at the given hour and minute, UTC, in the spec's form. */
export function dateTime(date: string, hour: number, minute: number): string {
  return `${date}T${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}:00Z`;
}

/** Tax year (`YYYY/YY`) that contains `date`: UK tax years start on 6 April. */
export function taxYear(date: string): string {
  const y = yearOf(date) - (date.slice(5) >= '04-06' ? 0 : 1);
  return `${y}/${String((y + 1) % 100).padStart(2, '0')}`;
}
