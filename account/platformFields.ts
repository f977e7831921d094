import derived from './platformFields.json';

/**
 * The fields of the platform's Account that this service does not import (account/platformFields.json,
 * derived from the platform's document by scripts/platformFields.ts; docs/platform-compatibility.md
 * lists them). They stay `unknown_field` — callers send only the documented fields — but the
 * answer says which they are, so a team strips them in its transform before a rehearsal.
 */
const FIELDS: ReadonlySet<string> = new Set(derived.fields);

/** `customers.0.consents` → `customers.*.consents`, the form of the list. */
function pattern(attr: string): string {
  return attr
    .split('.')
    .map((part) => (/^\d+$/.test(part) ? '*' : part))
    .join('.');
}

export function isPlatformField(attr: string): boolean {
  return FIELDS.has(pattern(attr));
}

/** The detail of an `unknown_field` error at a platform field; undefined for any other unknown field. */
export function platformFieldDetail(attr: string): string | undefined {
  if (!isPlatformField(attr)) return undefined;
  const name = attr.split('.').pop();
  return `Unknown field "${name}": a field of the platform's Account that this service does not import; remove it before sending (docs/platform-compatibility.md lists every such field).`;
}

/** Every such field, as listed. */
export const PLATFORM_ONLY_FIELDS: readonly string[] = derived.fields;
