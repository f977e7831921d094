import type { ErrorObject } from 'ajv';
import { FREE_FORM_KEYWORD } from './freeForm';
import { IssueList, NON_FIELD_ERRORS } from './issues';

/**
 * Integer fields whose range error has its own code (docs/spec/RULES.md: `day_of_month` 1–28 →
 * invalid_day_of_month). Every other range error is min_value / max_value.
 */
const RANGE_CODE_BY_FIELD: Record<string, string> = { day_of_month: 'invalid_day_of_month' };

const FORMAT_CODES: Record<string, string> = {
  date: 'invalid_date',
  'date-time': 'invalid_datetime',
  'date-or-date-time': 'invalid_date',
  decimal: 'invalid_decimal',
  email: 'invalid_email',
  time: 'invalid_time',
};

/** The code of a value that fails `format` (an unknown format's: invalid). */
export const formatCode = (format: string): string => FORMAT_CODES[format] ?? 'invalid';

function pointerParts(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function valueAt(root: unknown, parts: string[]): unknown {
  let v: unknown = root;
  for (const p of parts) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[p];
  }
  return v;
}

/**
 * Translates ajv errors into `{detail, code, attr}` items with dot paths relative to `root`
 * (the validated object), each prefixed with `prefix` (the dot path of `root` in the Account).
 * Stops translating once `out` is full; the rest are only counted.
 * One item per (attr, code): ajv may report the same fault twice (e.g. format and maxLength).
 */
export function translateAjvErrors(
  errors: readonly ErrorObject[],
  root: unknown,
  out: IssueList,
  prefix = '',
  /** The detail of an `unknown_field` at `attr`, when it says more than the default (the Account's platform fields). */
  unknownFieldDetail?: (attr: string) => string | undefined,
): void {
  const seen = new Set<string>();
  for (const e of errors) {
    if (out.full) {
      out.dropped += 1;
      continue;
    }
    const parts = pointerParts(e.instancePath);
    let code: string;
    let detail: string;
    const field = parts[parts.length - 1];
    switch (e.keyword) {
      case 'additionalProperties': {
        const name = String((e.params as { additionalProperty: string }).additionalProperty);
        parts.push(name);
        code = 'unknown_field';
        detail = `Unknown field "${name}": only documented fields may be sent.`;
        break;
      }
      case 'required': {
        const name = String((e.params as { missingProperty: string }).missingProperty);
        parts.push(name);
        code = 'required';
        detail = 'This field is required.';
        break;
      }
      case 'type': {
        const isNull = valueAt(root, parts) === null;
        code = isNull ? 'null' : 'invalid';
        detail = isNull ? 'This field may not be null.' : `Expected ${String((e.params as { type: string }).type)}.`;
        break;
      }
      case 'minLength':
        code = 'blank';
        detail = 'This field may not be blank.';
        break;
      case 'maxLength':
      case 'maxItems':
        code = 'max_length';
        detail = `Ensure this field has no more than ${String((e.params as { limit: number }).limit)} ${e.keyword === 'maxItems' ? 'items' : 'characters'}.`;
        break;
      case 'format': {
        const format = String((e.params as { format: string }).format);
        code = formatCode(format);
        detail = `Not a valid ${format}.`;
        break;
      }
      case 'enum':
        code = 'invalid_choice';
        detail = `Not a valid choice; allowed: ${((e.params as { allowedValues: unknown[] }).allowedValues ?? []).join(', ')}.`;
        break;
      case 'minimum':
      case 'maximum': {
        const limit = (e.params as { limit: number }).limit;
        code = RANGE_CODE_BY_FIELD[field] ?? (e.keyword === 'minimum' ? 'min_value' : 'max_value');
        detail = `Ensure this value is ${e.keyword === 'minimum' ? 'at least' : 'at most'} ${limit}.`;
        break;
      }
      case FREE_FORM_KEYWORD:
        code = 'free_form_too_large';
        detail = e.message ?? 'This free-form value is too large.';
        break;
      default:
        code = 'invalid';
        detail = e.message ?? 'Invalid value.';
    }
    const relative = parts.join('.');
    const attr = prefix === '' ? relative || NON_FIELD_ERRORS : relative ? `${prefix}.${relative}` : prefix;
    const key = `${attr}\u0000${code}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.add(code, attr, (code === 'unknown_field' && unknownFieldDetail?.(attr)) || detail);
  }
}
