import description from './platformAccount.json';

/**
 * The platform's Account (EnergyAccount of its data-import OpenAPI document) as data: every field
 * path (dot paths, `*` for an array item) with the facts its document gives — types, formats,
 * value sets, nullability, required, lengths, ranges and item constraints. Derived by
 * scripts/platformFields.ts (its header says how to run it); test/unit/account/platformAccount.test.ts
 * holds account/schema.ts to it.
 */
export interface PlatformField {
  type: string[];
  format?: string[];
  enum?: unknown[];
  nullable?: boolean;
  required?: boolean;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string[];
  /** The items of an array of scalars. */
  items?: { type: string[]; format?: string[]; enum?: unknown[] };
}

export const PLATFORM_ACCOUNT: Readonly<Record<string, PlatformField>> = description.fields as Record<string, PlatformField>;

/**
 * The values the platform's document lists for a field (for an array of scalars, for its items),
 * null left out: a field's nullability is a fact of its own. Empty when the field has no value set.
 */
export function platformValues(path: string): string[] {
  const field = PLATFORM_ACCOUNT[path];
  if (!field) throw new Error(`account/platformAccount.json has no field ${path}`);
  return (field.enum ?? field.items?.enum ?? []).filter((v): v is string => typeof v === 'string');
}

/** The spec's values of a field, then the platform's that the spec lacks (each value once). */
export function withPlatformValues<T extends string>(spec: readonly T[], path: string): readonly (T | string)[] {
  const values: (T | string)[] = [...spec];
  for (const v of platformValues(path)) if (!values.includes(v)) values.push(v);
  return values;
}
