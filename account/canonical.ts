import crypto from 'node:crypto';
import { withZone } from './dates';
import { normaliseUkPhone, normaliseUkPostcode } from './rules/contacts';
import { AccountSchema, CustomerSchema, PropertyAdministratorSchema, REFERENCED_SCHEMAS } from './schema';

/**
 * The canonical form of an Account (docs/bulk-migration.md, "The canonical form"): what the
 * service makes of an account on the way in, applied by one function that the API (the digest of
 * the account as stored) and `data-import reconcile` (the digest of the book's account) share, so
 * that an account the service stored faithfully has the digest of the one that was sent.
 *
 * The normalisation, all of it (anything else the service changed would be a bug):
 * 1. Phone numbers (`mobile`, `landline` of customers and property administrators, not the
 *    platform's other people's: a business user's are kept as sent, as stored) to E.164
 *    ("07700 900123" → "+447700900123"), as the validator patches them; a number that is not a
 *    valid UK number, or an empty string, is left as it is (such an account is not imported).
 * 2. Postcodes (`supply_postcode`, `billing_postcode`) to upper case with one space before the
 *    inward code ("ls14dy" → "LS1 4DY"), likewise.
 * 3. Date-times (`notes[].created_at`) to UTC with a `Z` (one sent without a zone is a time in
 *    Europe/London), to the millisecond, fraction dropped when
 *    zero ("2024-03-01T10:00:00+01:00" → "2024-03-01T09:00:00Z"): PostgreSQL keeps the instant,
 *    not the offset it was written with, and the read-back has millisecond precision (the
 *    microsecond PostgreSQL rounds to, then truncated to the millisecond).
 * 4. Optional fields that hold no data are omitted: `null` (`unknown_occupier`), and empty optional
 *    arrays (`psr: []`, `ledgers: []`…). The required arrays (`customers`, `supply_addresses`,
 *    `meter_points`, `meters`) stay, empty or not.
 * 5. Key order: objects are written with their keys sorted (by UTF-16 code unit, integer-like keys
 *    too), at every depth, the free-form `metadata[].value` included; array order is kept.
 * Everything else is kept as sent: decimals as their text ("12.50" stays "12.50", the store keeps
 * the text), dates (`YYYY-MM-DD`), integers, booleans, strings (no trimming, no Unicode
 * normalisation). No field has a default that the service fills in.
 *
 * The digest is `sha256:` and the hex SHA-256 of the canonical JSON (JSON.stringify of the
 * canonical form with sorted keys, no white space, UTF-8).
 */

type Json = Record<string, unknown>;
type Schema = Json;

const byId = new Map<string, Schema>(REFERENCED_SCHEMAS.map((s) => [s.$id as string, s as unknown as Schema]));

function resolve(schema: Schema): Schema {
  const ref = schema.$ref;
  return typeof ref === 'string' ? (byId.get(ref) ?? schema) : schema;
}

function isPlainObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const PHONE_FIELDS = new Set(['mobile', 'landline']);
const POSTCODE_FIELDS = new Set(['supply_postcode', 'billing_postcode']);

function normalisedText(field: string, value: string): string {
  if (value === '') return value;
  if (PHONE_FIELDS.has(field)) return normaliseUkPhone(value) ?? value;
  if (POSTCODE_FIELDS.has(field)) return normaliseUkPostcode(value) ?? value;
  return value;
}

// As account/dates.ts DATETIME_RE: date, time, optional fraction, zone.
const DATETIME_RE = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:?\d{2})$/;

/**
 * A date-time as the store reads it back: UTC, milliseconds, `.000` dropped; one sent without a
 * zone is read in Europe/London first (account/dates.ts). Others unchanged.
 */
export function canonicalDateTime(sent: string): string {
  const value = withZone(sent);
  const m = DATETIME_RE.exec(value);
  if (!m) return sent;
  const zone = m[3] === 'Z' ? 'Z' : `${m[3]!.slice(0, 3)}:${m[3]!.slice(-2)}`;
  const whole = Date.parse(`${m[1]}${zone}`);
  if (Number.isNaN(whole)) return value;
  // PostgreSQL rounds to the microsecond; node-pg's parser then keeps whole milliseconds.
  const micros = m[2] ? Math.round(Number(`0.${m[2]}`) * 1e6) : 0;
  const d = new Date(whole + Math.floor(micros / 1000));
  if (Number.isNaN(d.getTime())) return value;
  return d.toISOString().replace('.000Z', 'Z');
}

const requiredSets = new WeakMap<Schema, ReadonlySet<string>>();

function requiredOf(schema: Schema): ReadonlySet<string> {
  let set = requiredSets.get(schema);
  if (!set) requiredSets.set(schema, (set = new Set((schema.required as string[] | undefined) ?? [])));
  return set;
}

/** The objects whose phone numbers the validator normalises (customers' rules): the others' are kept as sent. */
const PHONE_OWNERS = new Set([CustomerSchema.$id, PropertyAdministratorSchema.$id]);

function canonicalNode(value: unknown, raw: Schema, field: string, owner = ''): unknown {
  const schema = resolve(raw);
  if (Array.isArray(value)) {
    // A nullable array's type is ['array', 'null'] (account/platformSchema.ts).
    const isArray = schema.type === 'array' || (Array.isArray(schema.type) && schema.type.includes('array'));
    const items = isArray && isPlainObject(schema.items) ? (schema.items as Schema) : {};
    return value.map((v) => canonicalNode(v, items, field, owner));
  }
  if (isPlainObject(value)) {
    const properties = isPlainObject(schema.properties) ? (schema.properties as Record<string, Schema>) : null;
    // A free-form object (metadata value) or one the schema does not describe: kept, keys sorted.
    if (properties === null || Object.keys(properties).length === 0) return sortedCopy(value);
    const required = requiredOf(schema);
    const out: Json = {};
    for (const key of Object.keys(value).sort()) {
      const v = value[key];
      if (v === undefined) continue;
      const prop = properties[key];
      if (!required.has(key) && (v === null || (Array.isArray(v) && v.length === 0))) continue;
      if (prop === undefined) {
        if (INDEX_KEY.test(key)) sawIndexKey = true;
        out[key] = sortedCopy(v);
      } else out[key] = canonicalNode(v, prop, key, typeof schema.$id === 'string' ? schema.$id : '');
    }
    return out;
  }
  if (typeof value === 'string') {
    if (schema.format === 'date-time') return canonicalDateTime(value);
    return PHONE_FIELDS.has(field) && !PHONE_OWNERS.has(owner) ? value : normalisedText(field, value);
  }
  return value;
}

/**
 * A key JavaScript enumerates before the others whatever the insertion order (an array index):
 * an object holding one cannot be written key-sorted by JSON.stringify.
 */
const INDEX_KEY = /^(0|[1-9]\d{0,9})$/;
/** Set by canonicalAccount when its result holds such a key (then canonicalJson writes it). */
let sawIndexKey = false;

function sortedCopy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedCopy);
  if (!isPlainObject(value)) return value;
  const out: Json = {};
  for (const key of Object.keys(value).sort()) {
    if (value[key] === undefined) continue;
    if (INDEX_KEY.test(key)) sawIndexKey = true;
    out[key] = sortedCopy(value[key]);
  }
  return out;
}

/**
 * The canonical form of an account (the create body's shape; an envelope's `payload`, not the
 * envelope). Pure: the input is not changed. Idempotent: the canonical form of a canonical form is
 * itself. An input that is not an object is returned as it is.
 */
export function canonicalAccount<T>(account: T): T {
  return canonicalNode(account, AccountSchema as unknown as Schema, '') as T;
}

/**
 * JSON with every object's keys sorted (UTF-16 code units, integer-like keys included: an object
 * copy would enumerate those first) at every depth, no white space; values as JSON.stringify.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  if (isPlainObject(value)) {
    const keys = Object.keys(value)
      .filter((k) => value[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** `sha256:<hex>` of the canonical JSON of the account's canonical form. */
export function accountDigest(account: unknown): string {
  sawIndexKey = false;
  const canonical = canonicalAccount(account);
  // The canonical form's keys are inserted sorted: JSON.stringify writes them in that order (and
  // several times faster than canonicalJson), unless an index-like key makes JavaScript reorder.
  const json = sawIndexKey ? canonicalJson(canonical) : JSON.stringify(canonical);
  return `sha256:${crypto.createHash('sha256').update(json, 'utf8').digest('hex')}`;
}
