import type { ColumnSpec } from './spec';

export type Converted = { ok: true; value: unknown } | { ok: false; detail: string };

const fail = (detail: string): Converted => ({ ok: false, detail });

const JSON_ESCAPED = /[\\\u0000-\u001f]/;
const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/** The number patterns of an amount, with a point or a comma for decimals: built once, not per value. */
const NUMBER_PATTERN = new Map<boolean, RegExp>(
  ([false, true] as const).map((comma) => {
    const [thousands, point] = comma ? ['.', ','] : [',', '.'];
    return [comma, new RegExp(`^\\d{1,3}(\\${thousands}\\d{3})*(\\${point}\\d+)?$|^\\d+(\\${point}\\d+)?$`)];
  }),
);

/**
 * A legacy text to the value its column declares (mapping/spec.ts ColumnSpec): dates in the old
 * system's order, amounts in pence or with implied decimals, currency symbols, thousands
 * separators, decimal commas, a sign in a column of its own or as a DR/CR suffix, Y/N flags.
 * Amounts are computed on the digits, never through a binary float, so 1999 pence is "19.99"
 * exactly; a decimal is text, as the Account holds it, an integer a number.
 */
export function convertValue(col: ColumnSpec, raw: string, row: Record<string, string>): Converted {
  const text = raw.trim();
  if (text === '') return { ok: true, value: col.emptyIsNull ? null : col.type === 'string' ? '' : null };
  switch (col.type) {
    case 'string':
      return { ok: true, value: raw };
    case 'json':
      // The texts most cells hold, read as JSON.parse would without its call: a string with no
      // escape or control character, a literal, a number.
      if (raw.charCodeAt(0) === 34 && raw.length > 1 && raw.indexOf('"', 1) === raw.length - 1 && !JSON_ESCAPED.test(raw)) return { ok: true, value: raw.slice(1, -1) };
      if (raw === 'true' || raw === 'false' || raw === 'null') return { ok: true, value: raw === 'null' ? null : raw === 'true' };
      if (JSON_NUMBER.test(raw)) return { ok: true, value: Number(raw) };
      try {
        return { ok: true, value: JSON.parse(raw) as unknown };
      } catch {
        return fail(`"${text.slice(0, 40)}" is not JSON`);
      }
    case 'boolean': {
      const t = col.trueText ?? 'Y';
      const f = col.falseText ?? 'N';
      if (text.toUpperCase() === t.toUpperCase()) return { ok: true, value: true };
      if (text.toUpperCase() === f.toUpperCase()) return { ok: true, value: false };
      return fail(`"${text}" is neither ${t} nor ${f}`);
    }
    case 'date':
      return date(text, col.format ?? 'yyyy-mm-dd');
    case 'datetime':
      return dateTime(text, col.format ?? 'iso');
    case 'integer':
    case 'decimal':
      return amount(col, text, row);
  }
}

function ymd(y: string, m: string, d: string): Converted {
  const date = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)));
  if (date.getUTCFullYear() !== Number(y) || date.getUTCMonth() !== Number(m) - 1 || date.getUTCDate() !== Number(d)) return fail(`${y}-${m}-${d} is not a date`);
  return { ok: true, value: `${y}-${m}-${d}` };
}

function date(text: string, format: string): Converted {
  let m: RegExpExecArray | null;
  if (format === 'dd/mm/yyyy' && (m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(text))) return ymd(m[3], m[2].padStart(2, '0'), m[1].padStart(2, '0'));
  if (format === 'yyyymmdd' && (m = /^(\d{4})(\d{2})(\d{2})$/.exec(text))) return ymd(m[1], m[2], m[3]);
  if (format === 'yyyy-mm-dd' && (m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text))) return ymd(m[1], m[2], m[3]);
  return fail(`"${text}" is not a date as ${format}`);
}

const LONDON = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/London', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', hourCycle: 'h23', minute: '2-digit' });

/** Minutes London is ahead of UTC at an instant. */
function londonMinutesAt(utcMs: number): number {
  const p = Object.fromEntries(LONDON.formatToParts(new Date(utcMs)).map((x) => [x.type, Number(x.value)]));
  return (Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute) - Math.floor(utcMs / 60_000) * 60_000) / 60_000;
}

/** The UTC offset London had at a local wall-clock time, as `+00:00` or `+01:00`. */
function londonOffset(y: number, mo: number, d: number, h: number, mi: number): string {
  const local = Date.UTC(y, mo - 1, d, h, mi);
  const first = londonMinutesAt(local);
  const minutes = londonMinutesAt(local - first * 60_000);
  return `${minutes < 0 ? '-' : '+'}${String(Math.floor(Math.abs(minutes) / 60)).padStart(2, '0')}:${String(Math.abs(minutes) % 60).padStart(2, '0')}`;
}

function dateTime(text: string, format: string): Converted {
  if (format === 'iso') {
    return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text) && !Number.isNaN(Date.parse(text)) ? { ok: true, value: text } : fail(`"${text}" is not an ISO 8601 date-time with an offset`);
  }
  const m = format === 'yyyymmddhhmmss' ? /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(text) : /^(\d{1,2})\/(\d{1,2})\/(\d{4}) (\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec(text);
  if (!m) return fail(`"${text}" is not a date-time as ${format}`);
  const [y, mo, d] = format === 'yyyymmddhhmmss' ? [m[1], m[2], m[3]] : [m[3], m[2].padStart(2, '0'), m[1].padStart(2, '0')];
  const day = ymd(y, mo, d);
  if (!day.ok) return day;
  const [h, mi, s] = [Number(m[4]), Number(m[5]), Number(m[6] ?? 0)];
  if (h > 23 || mi > 59 || s > 59) return fail(`"${text}" has no such time of day`);
  const time = `${String(h).padStart(2, '0')}:${String(mi).padStart(2, '0')}:${String(s).padStart(2, '0')}`;
  // Legacy systems wrote London wall-clock time: the offset is the one London had then.
  return { ok: true, value: `${y}-${mo}-${d}T${time}${londonOffset(Number(y), Number(mo), Number(d), h, mi)}` };
}

const DIGITS = /^\d+$/;

function amount(col: ColumnSpec, text: string, row: Record<string, string>): Converted {
  // Digits alone, no sign column, no places to move (most legacy numbers: keys, counts, places in
  // a list): the value the steps below come to, without their patterns.
  if (!col.signColumn && !col.pence && !col.impliedDecimals && DIGITS.test(text)) {
    const whole = text.replace(/^0+(?=\d)/, '');
    return { ok: true, value: col.type === 'integer' ? Number(whole) : whole };
  }
  let t = text.replace(/^[£$€]|[£$€]$/g, '').replace(/\s/g, '');
  let negative = false;
  const suffix = /^(.*?)(DR|CR)$/i.exec(t);
  if (suffix) {
    t = suffix[1];
    negative = suffix[2].toUpperCase() === 'DR';
  }
  if (t.startsWith('(') && t.endsWith(')')) {
    t = t.slice(1, -1);
    negative = true;
  }
  if (/^[-+]/.test(t)) {
    negative = negative !== (t[0] === '-');
    t = t.slice(1).replace(/^[£$€]/, '');
  }
  if (col.signColumn) {
    const sign = (row[col.signColumn] ?? '').trim().toUpperCase();
    if (sign === '-' || sign === 'DR') negative = !negative;
    else if (!['', '+', 'CR'].includes(sign)) return fail(`sign column ${col.signColumn} holds "${sign}": not -, +, DR or CR`);
  }
  const [thousands, point] = col.decimalComma ? ['.', ','] : [',', '.'];
  if (!NUMBER_PATTERN.get(col.decimalComma === true)!.test(t)) return fail(`"${text}" is not a number`);
  t = t.split(thousands).join('');
  let [whole, frac = ''] = t.split(point);
  const shift = (col.pence ? 2 : 0) + (col.impliedDecimals ?? 0);
  if (shift > 0) {
    // Move the decimal point left on the digits: exact for any amount.
    const digits = (whole + frac).padStart(shift + frac.length + 1, '0');
    const cut = digits.length - (frac.length + shift);
    whole = digits.slice(0, cut);
    frac = digits.slice(cut);
  }
  whole = whole.replace(/^0+(?=\d)/, '');
  const sign = negative && /[1-9]/.test(whole + frac) ? '-' : '';
  if (col.type === 'integer') {
    if (/[1-9]/.test(frac)) return fail(`"${text}" is not a whole number`);
    return { ok: true, value: Number(`${sign}${whole}`) };
  }
  // The Account holds decimals as their text ("12.50" stays "12.50"): the places are kept.
  return { ok: true, value: `${sign}${whole}${frac ? `.${frac}` : ''}` };
}

/** A column's own check (a range, a pattern, a value set): null when the value passes. */
export function checkValue(col: ColumnSpec, raw: string, value: unknown): string | null {
  const c = col.check;
  if (!c || value === null) return null;
  if (c.in && !c.in.includes(raw.trim())) return `"${raw.trim()}" is not one of ${c.in.join(', ')}`;
  if (c.pattern && !c.pattern.test(raw.trim())) return `"${raw.trim()}" does not match ${c.pattern.source}`;
  const n = typeof value === 'number' ? value : typeof value === 'string' && col.type === 'decimal' ? Number(value) : NaN;
  if (c.min !== undefined && n < c.min) return `${String(value)} is below ${c.min}`;
  if (c.max !== undefined && n > c.max) return `${String(value)} is above ${c.max}`;
  return null;
}
