import type { TSchema } from '@sinclair/typebox';
import { REFERENCED_SCHEMAS } from '../../account/schema';

/** Field paths of the Account, `.supply_addresses[].meter_points[].identifier`: of its schema, or set in one payload. */

const byId = new Map<string, TSchema>(REFERENCED_SCHEMAS.map((s) => [`${s.$id}`, s]));

/** The schema's leaf fields as paths: `.supply_addresses[].meter_points[].identifier`. */
export function schemaFields(schema: TSchema, path = '', out: string[] = []): string[] {
  const s = (schema.$ref ? byId.get(schema.$ref as string) : schema) as TSchema;
  // A nullable field's type is [type, 'null'] (account/platformSchema.ts).
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  const items = type === 'array' ? ((s.items as TSchema).$ref ? byId.get((s.items as TSchema).$ref as string) : s.items) as TSchema : undefined;
  // An array of scalars (a customer's roles) is stored whole, like a leaf.
  if (items && (Array.isArray(items.type) ? items.type[0] : items.type) !== 'object') {
    out.push(path);
    return out;
  }
  if (items) return schemaFields(items, `${path}[]`, out);
  const properties = type === 'object' ? (s.properties as Record<string, TSchema> | undefined) : undefined;
  // An object without properties (metadata's free-form value) is stored whole, like a leaf.
  if (!properties || Object.keys(properties).length === 0) out.push(path);
  else for (const [name, p] of Object.entries(properties)) schemaFields(p, `${path}.${name}`, out);
  return out;
}

/** The leaf fields set in `value` (each path once), for checking that a test payload sets them all. */
export function dataFields(value: unknown, path = '', out = new Set<string>(), leaves?: ReadonlySet<string>): Set<string> {
  // A free-form object of the schema (a line item's `params`) is one field, whatever it holds.
  if (leaves?.has(path)) out.add(path);
  else if (Array.isArray(value) && value.length > 0 && value.every((v) => v === null || typeof v !== 'object')) out.add(path);
  else if (Array.isArray(value)) for (const v of value) dataFields(v, `${path}[]`, out, leaves);
  else if (value !== null && typeof value === 'object' && path !== '.metadata[].value') {
    for (const [k, v] of Object.entries(value)) dataFields(v, `${path}.${k}`, out, leaves);
  } else out.add(path);
  return out;
}
