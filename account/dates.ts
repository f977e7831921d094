/**
 * Calendar helpers. Dates are `YYYY-MM-DD` strings throughout: they compare correctly as strings
 * and carry no time zone. "Today" is the calendar day in Europe/London, the market's clock.
 */

// ISO 8601, fractional seconds allowed, with a zone (Z or ±HH:MM) or without one: a client
// generated from the platform's document sends `2021-06-01T00:00:00`, which the platform's framework
// accepts and reads in the market's zone, Europe/London (localInstant below).
const DATETIME_RE = /^(\d{4}-\d{2}-\d{2})T([01]\d|2[0-3]):([0-5]\d):([0-5]\d)(\.\d{1,9})?(Z|[+-](?:[01]\d|2[0-3]):?[0-5]\d)?$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * A real calendar day in `YYYY-MM-DD` form (2026-02-30 is not one), from year 0001: PostgreSQL
 * has no year 0000 (1 BC), so an account holding one could be validated but never written.
 */
export function isIsoDate(value: string): boolean {
  // Character arithmetic rather than regex + Number(): this runs for every date of every payload.
  if (value.length !== 10 || value.charCodeAt(4) !== 45 || value.charCodeAt(7) !== 45) return false;
  let year = 0;
  for (let i = 0; i < 4; i++) {
    const d = value.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return false;
    year = year * 10 + d;
  }
  const m1 = value.charCodeAt(5) - 48;
  const m2 = value.charCodeAt(6) - 48;
  const d1 = value.charCodeAt(8) - 48;
  const d2 = value.charCodeAt(9) - 48;
  if (m1 < 0 || m1 > 9 || m2 < 0 || m2 > 9 || d1 < 0 || d1 > 9 || d2 < 0 || d2 > 9) return false;
  const month = m1 * 10 + m2;
  const day = d1 * 10 + d2;
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const max = month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1];
  return day <= max;
}

/** ISO 8601 datetime, with a zone or without one, on a real calendar day. */
export function isIsoDateTime(value: string): boolean {
  const m = DATETIME_RE.exec(value);
  return m !== null && isIsoDate(m[1]);
}

const londonDay = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'Europe/London',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
});

/** The calendar day of `now` in Europe/London, as `YYYY-MM-DD`. */
export function londonToday(now: Date): string {
  return londonDay.format(now);
}

/** The day after a valid `YYYY-MM-DD` date. */
export function nextDay(date: string): string {
  const [y, m, d] = date.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10);
}

const londonParts = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'Europe/London',
  hourCycle: 'h23',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

/** London's offset from UTC at an instant, in milliseconds (0 in winter, one hour in summer). */
function londonOffset(ms: number): number {
  const p = Object.fromEntries(londonParts.formatToParts(new Date(ms)).map((x) => [x.type, x.value]));
  const wall = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second));
  return wall - Math.floor(ms / 1000) * 1000;
}

/**
 * The instant of a date-time in milliseconds: one without a zone is a wall-clock time in
 * Europe/London (in the hour the clocks go back, its second occurrence, GMT; in the hour they
 * skip, the instant an hour later). NaN when unreadable.
 */
export function instantOf(value: string): number {
  const m = DATETIME_RE.exec(value);
  if (!m || m[6] !== undefined) return Date.parse(value);
  const wall = Date.parse(`${value}Z`);
  if (Number.isNaN(wall)) return wall;
  return wall - londonOffset(wall - londonOffset(wall));
}

/** A date-time with its zone: one sent without a zone gets Europe/London's offset of that time. */
export function withZone(value: string): string {
  const m = DATETIME_RE.exec(value);
  if (!m || m[6] !== undefined) return value;
  const ms = instantOf(value);
  if (Number.isNaN(ms)) return value;
  const offset = Math.round((Date.parse(`${value}Z`) - ms) / 60_000);
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  return `${value}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}
