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

/**
 * Every field path of the description, as a type (the JSON module's keys): a rule or an event that
 * names a platform field through it (account/rules/loose.ts) fails the type check when a
 * regenerated description no longer has the field.
 */
export type PlatformPath = keyof typeof description.fields;

/** The phantom key that carries a record's path (types only). */
export declare const PATH: unique symbol;
/** The names of the fields of the platform's record at path P (the description's paths, `*` an array item). */
export type FieldOf<P extends string> = PlatformPath extends infer K
  ? P extends ''
    ? (K extends `${string}.${string}` ? never : K)
    : K extends `${P}.${infer N}` ? (N extends `${string}.${string}` | '*' ? never : N) : never
  : never;
/**
 * A record of the platform's Account at path P: only the description's fields of that record can
 * be read from it, by name (text, integer, given, records below, or a property), so a field that
 * leaves the description fails the type check at each read. Values stay unknown: the readers
 * check them.
 */
export type Rec<P extends string> = { readonly [K in FieldOf<P>]?: unknown } & { readonly [PATH]?: P };
/**
 * A record (a payload's object, a stored row of the platform's tables, whose columns are named
 * after its fields) viewed as the platform's record at `path`: its reads by field name are checked
 * against the description.
 */
export function platformRecord<P extends string>(record: object, path: P & ([FieldOf<P>] extends [never] ? never : P)): Rec<P> {
  void path;
  return record as Rec<P>;
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
