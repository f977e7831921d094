import type { TSchema } from '@sinclair/typebox';
import { REFERENCED_SCHEMAS } from '../../account/schema';

/** Field paths of the Account, `.supply_addresses[].meter_points[].identifier`: of its schema, or set in one payload. */

const byId = new Map<string, TSchema>(REFERENCED_SCHEMAS.map((s) => [`${s.$id}`, s]));

/** The schema's leaf fields as paths: `.supply_addresses[].meter_points[].identifier`. */
export function schemaFields(schema: TSchema, path = '', out: string[] = []): string[] {
  const s = (schema.$ref ? byId.get(schema.$ref as string) : schema) as TSchema;
  if (s.type === 'array') return schemaFields(s.items as TSchema, `${path}[]`, out);
  const properties = s.type === 'object' ? (s.properties as Record<string, TSchema> | undefined) : undefined;
  // An object without properties (metadata's free-form value) is stored whole, like a leaf.
  if (!properties || Object.keys(properties).length === 0) out.push(path);
  else for (const [name, p] of Object.entries(properties)) schemaFields(p, `${path}.${name}`, out);
  return out;
}

/** The leaf fields set in `value` (each path once), for checking that a test payload sets them all. */
export function dataFields(value: unknown, path = '', out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) dataFields(v, `${path}[]`, out);
  else if (value !== null && typeof value === 'object' && path !== '.metadata[].value') {
    for (const [k, v] of Object.entries(value)) dataFields(v, `${path}.${k}`, out);
  } else out.add(path);
  return out;
}
