import { Type, type TSchema } from '@sinclair/typebox';
import { PLATFORM_ACCOUNT, type PlatformField } from './platformAccount';
import { FREE_FORM_BOUNDS, FREE_FORM_KEYWORD } from './freeForm';

/**
 * JSON Schema built from the platform's Account as data (account/platformAccount.json): the
 * fields of the platform's document that account/schema.ts does not write by hand come from here,
 * with the document's own types, formats, value sets, nullability, required sub-fields, lengths,
 * ranges and patterns. account/schema.ts spreads `platformRest(path, known)` into each of its
 * objects: the platform's other fields of that object.
 *
 * Decisions where the document says nothing:
 * - Arrays without a `maxItems` are capped at ARRAY_CAP items (hostile payloads stay bounded, as
 *   every array of account/schema.ts is); text without a `maxLength` at TEXT_CAP characters;
 *   integers without a range at ±(2^53 − 1) (min_value / max_value beyond).
 * - A field without a type (the document's dynamic choice sets: `consents[].type`, a business's
 *   `segment_name`, free-form `value`s) takes any JSON value.
 * - An object without described fields (`params` of a line item) is free-form, like the spec's
 *   `metadata[].value`. Every free-form value (and a list of values of no type, as a whole) is
 *   held to FREE_FORM_BOUNDS in values, depth and characters (account/freeForm.ts).
 * - Decimal strings must be decimals here (format `decimal`) and match the document's pattern too.
 */
export const ARRAY_CAP = 10_000;
export const TEXT_CAP = 100_000;

/** The direct children of a platform path (an array's are its items'): name → full path. */
export function platformChildren(path: string): Map<string, string> {
  const prefix = path === '' ? '' : PLATFORM_ACCOUNT[path]?.type.includes('array') ? `${path}.*.` : `${path}.`;
  const out = new Map<string, string>();
  for (const key of Object.keys(PLATFORM_ACCOUNT)) {
    if (!key.startsWith(prefix)) continue;
    const rest = key.slice(prefix.length);
    if (rest !== '' && !rest.includes('.') && rest !== '*') out.set(rest, key);
  }
  return out;
}

function scalar(type: string, f: Pick<PlatformField, 'format' | 'enum'> & Partial<PlatformField>): Record<string, unknown> {
  const s: Record<string, unknown> = { type };
  if (type === 'string') {
    const format = f.format?.[0];
    if (format) s.format = format;
    if (f.minLength !== undefined) s.minLength = f.minLength;
    s.maxLength = f.maxLength ?? TEXT_CAP;
    if (f.pattern?.length === 1) s.pattern = f.pattern[0];
  }
  if (type === 'integer' || type === 'number') {
    // Unbounded integers held to what JSON numbers carry exactly (and a bigint column holds).
    s.minimum = f.minimum ?? -Number.MAX_SAFE_INTEGER;
    s.maximum = f.maximum ?? Number.MAX_SAFE_INTEGER;
  }
  const values = f.enum?.filter((v) => v !== null);
  if (values && values.length > 0) s.enum = values;
  return s;
}

/** The schema of the platform field at `path`, from its facts, its sub-fields included. */
export function platformSchema(path: string): TSchema {
  const f = PLATFORM_ACCOUNT[path];
  if (!f) throw new Error(`account/platformAccount.json has no field ${path}`);
  let s: Record<string, unknown>;
  const type = f.type[0];
  if (type === undefined) {
    return Type.Unsafe(freeForm({}));
  } else if (type === 'object') {
    const properties = Object.fromEntries([...platformChildren(path)].map(([name, p]) => [name, platformSchema(p)]));
    if (Object.keys(properties).length === 0) s = freeForm({ type: 'object', additionalProperties: true });
    else s = objectSchema(properties, path);
  } else if (type === 'array') {
    const children = platformChildren(path);
    let items: unknown;
    if (children.size > 0) {
      items = objectSchema(Object.fromEntries([...children].map(([name, p]) => [name, platformSchema(p)])), `${path}.*`);
    } else if (f.items) items = f.items.type[0] ? scalar(f.items.type[0], f.items) : {};
    else items = {};
    s = { type: 'array', items, maxItems: f.maxItems ?? ARRAY_CAP };
    if (f.minItems !== undefined) s.minItems = f.minItems;
    // A list of values of no type is one free-form value: bounded as a whole, not per item.
    if (children.size === 0 && !f.items?.type[0]) s = freeForm(s);
  } else {
    s = scalar(type, f);
  }
  if (f.nullable && s.type) {
    s.type = [s.type as string, 'null'];
    if (Array.isArray(s.enum)) s.enum = [...(s.enum as unknown[]), null];
  }
  return Type.Unsafe(s);
}

/** A free-form node: its value held to FREE_FORM_BOUNDS (account/freeForm.ts). */
export function freeForm<T extends Record<string, unknown>>(s: T): T {
  return { ...s, [FREE_FORM_KEYWORD]: FREE_FORM_BOUNDS };
}

function objectSchema(properties: Record<string, TSchema>, path: string): Record<string, unknown> {
  const required = Object.keys(properties).filter((name) => PLATFORM_ACCOUNT[childPath(path, name)]?.required);
  const s: Record<string, unknown> = { type: 'object', properties, additionalProperties: false };
  if (required.length > 0) s.required = required;
  return s;
}

function childPath(path: string, name: string): string {
  return path === '' ? name : `${path}.${name}`;
}

/**
 * The platform's fields of the object at `path` (`supply_addresses.*` for a supply address, '' for
 * the Account) that `known` (the object's hand-written fields) lacks: to spread into a TypeBox
 * object. Each is optional there, even one the platform requires (a transaction's `product_code`,
 * `line_items`): the spec's accounts, which never had them, stay valid. Inside such a field, the
 * platform's required sub-fields are required.
 */
export function platformRest(path: string, known: readonly string[]): Record<string, TSchema> {
  const out: Record<string, TSchema> = {};
  for (const [name, p] of platformChildren(path)) {
    if (known.includes(name)) continue;
    out[name] = Type.Optional(platformSchema(p));
  }
  return out;
}
