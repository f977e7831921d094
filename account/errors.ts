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

/**
 * The code of an ajv error of `keyword` (the schema's `format` for a format error) at a field named
 * `field`, whose value is null or not: the one mapping of schema keywords to codes, used to
 * translate errors (below) and to say which codes check each field (account/schemaCodes.ts).
 */
export function ajvErrorCode(keyword: string, o: { format?: string; field?: string; isNull?: boolean } = {}): string {
  switch (keyword) {
    case 'additionalProperties':
      return 'unknown_field';
    case 'required':
      return 'required';
    case 'type':
      return o.isNull ? 'null' : 'invalid';
    case 'minLength':
      return 'blank';
    case 'maxLength':
    case 'maxItems':
      return 'max_length';
    case 'format':
      return FORMAT_CODES[o.format ?? ''] ?? 'invalid';
    case 'enum':
      return 'invalid_choice';
    case 'minimum':
    case 'maximum':
      return RANGE_CODE_BY_FIELD[o.field ?? ''] ?? (keyword === 'minimum' ? 'min_value' : 'max_value');
    case FREE_FORM_KEYWORD:
      return 'free_form_too_large';
    default:
      return 'invalid';
  }
}

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
    let detail: string;
    const field = parts[parts.length - 1];
    switch (e.keyword) {
      case 'additionalProperties': {
        const name = String((e.params as { additionalProperty: string }).additionalProperty);
        parts.push(name);
        detail = `Unknown field "${name}": only documented fields may be sent.`;
        break;
      }
      case 'required': {
        const name = String((e.params as { missingProperty: string }).missingProperty);
        parts.push(name);
        detail = 'This field is required.';
        break;
      }
      case 'type':
        detail = valueAt(root, parts) === null ? 'This field may not be null.' : `Expected ${String((e.params as { type: string }).type)}.`;
        break;
      case 'minLength':
        detail = 'This field may not be blank.';
        break;
      case 'maxLength':
      case 'maxItems':
        detail = `Ensure this field has no more than ${String((e.params as { limit: number }).limit)} ${e.keyword === 'maxItems' ? 'items' : 'characters'}.`;
        break;
      case 'format':
        detail = `Not a valid ${String((e.params as { format: string }).format)}.`;
        break;
      case 'enum':
        detail = `Not a valid choice; allowed: ${((e.params as { allowedValues: unknown[] }).allowedValues ?? []).join(', ')}.`;
        break;
      case 'minimum':
      case 'maximum':
        detail = `Ensure this value is ${e.keyword === 'minimum' ? 'at least' : 'at most'} ${(e.params as { limit: number }).limit}.`;
        break;
      case FREE_FORM_KEYWORD:
        detail = e.message ?? 'This free-form value is too large.';
        break;
      default:
        detail = e.message ?? 'Invalid value.';
    }
    const code = ajvErrorCode(e.keyword, {
      format: e.keyword === 'format' ? String((e.params as { format: string }).format) : undefined,
      field,
      isNull: e.keyword === 'type' && valueAt(root, parts) === null,
    });
    const relative = parts.join('.');
    const attr = prefix === '' ? relative || NON_FIELD_ERRORS : relative ? `${prefix}.${relative}` : prefix;
    const key = `${attr}\u0000${code}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.add(code, attr, (code === 'unknown_field' && unknownFieldDetail?.(attr)) || detail);
  }
}
