import { parsePhoneNumberFromString } from 'libphonenumber-js/max';

/**
 * Contact-detail checks shared by customers and property administrators.
 * The `max` metadata of libphonenumber-js checks numbers against the numbering plan, not
 * only their length.
 */

// Crown dependencies share the UK numbering plan (+44).
const UK_PLAN_COUNTRIES = new Set(['GB', 'GG', 'JE', 'IM']);

/** The number in E.164 form, or null when it is not a valid UK number. */
export function normaliseUkPhone(value: string): string | null {
  const phone = parsePhoneNumberFromString(value, 'GB');
  if (!phone || !phone.isValid() || !phone.country || !UK_PLAN_COUNTRIES.has(phone.country)) return null;
  return phone.number;
}

const POSTCODE_RE = /^([A-Z]{1,2}\d[A-Z\d]?)(\d[A-Z]{2})$/;

/** Upper case with one space before the inward code ("ls14dy" → "LS1 4DY"), or null if not a UK postcode. */
export function normaliseUkPostcode(value: string): string | null {
  const compact = value.toUpperCase().replace(/\s+/g, '');
  if (compact === 'GIR0AA') return 'GIR 0AA';
  const m = POSTCODE_RE.exec(compact);
  return m ? `${m[1]} ${m[2]}` : null;
}

const EMAIL_RE =
  /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

export type EmailVerdict = 'ok' | 'invalid_email' | 'possible_test_email_address';

/** Syntax first; then the test addresses of docs/spec/RULES.md (test@…, xxx@…, …@test.com, …@test.co.uk, ….xxx, ….xx). */
export function checkEmail(value: string): EmailVerdict {
  if (value.length > 254 || !EMAIL_RE.test(value)) return 'invalid_email';
  const lower = value.toLowerCase();
  const at = lower.lastIndexOf('@');
  const local = lower.slice(0, at);
  const domain = lower.slice(at + 1);
  if (
    local === 'test' ||
    local === 'xxx' ||
    domain === 'test.com' ||
    domain === 'test.co.uk' ||
    domain.endsWith('.xxx') ||
    domain.endsWith('.xx')
  ) {
    return 'possible_test_email_address';
  }
  return 'ok';
}
