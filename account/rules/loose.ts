import type { FieldOf, PATH, Rec } from '../platformAccount';

export type { FieldOf, Rec };
import type { RuleContext } from './context';

/**
 * Loose reads of the Account for the rules of the platform's fields (issue 35). The shape check
 * holds those fields to account/platformAccount.json; these readers still take a value only when
 * it has the type the rule needs, so a rule neither depends on a typed view of every platform path
 * nor crashes on a value that failed the shape check. Each record is read only where `ok(attr)`
 * says no shape error lies at or below it, as for every rule (context.ts).
 */
export type Json = Record<string, unknown>;

/** The path of a platform record; never for a plain one. */
type PathOf<O> = O extends { readonly [PATH]?: infer P extends string } ? (string extends P ? never : P) : never;
/** The keys a reader takes of a record: its fields for a platform record, any for a plain one. */
export type KeyOf<O> = [PathOf<O>] extends [never] ? string : FieldOf<PathOf<O>>;
/** A pattern's records: typed when the description has the pattern as an object path. */
type Typed<P extends string> = [FieldOf<P>] extends [never] ? never : P;
/** The records of an array field of a record. */
type ItemsOf<O, K> = [PathOf<O>] extends [never] ? never : Typed<`${PathOf<O>}.${K & string}.*`>;

export function isRecord(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The account as a record of the platform's Account (its fields the description's). */
export function root(ctx: RuleContext): Rec<''> {
  return ctx.account as unknown as Rec<''>;
}

/** The account as a plain record: for the spec's fields the platform's Account has not (`ledgers`). */
export function plainRoot(ctx: RuleContext): Json {
  return ctx.account as unknown as Json;
}

/** A string field; undefined when absent, null or of another type. */
export function text<O extends object>(o: O, key: KeyOf<O>): string | undefined {
  const v = (o as Json)[key];
  return typeof v === 'string' ? v : undefined;
}

/** An integer field; undefined when absent, null or of another type. */
export function integer<O extends object>(o: O, key: KeyOf<O>): number | undefined {
  const v = (o as Json)[key];
  return Number.isSafeInteger(v) ? (v as number) : undefined;
}

/** Whether a field is given (present and not null: the platform's nullable fields send null for "none"). */
export function given<O extends object>(o: O, key: KeyOf<O>): boolean {
  const v = (o as Json)[key];
  return v !== undefined && v !== null;
}

/** A record with its attr and its index in its array (0 for a record outside any array); of the platform's path P when given. */
export type At<P extends string = never> = [[P] extends [never] ? Json : Rec<P>, string, number];

const NONE: readonly never[] = Object.freeze([]);

/**
 * The records of the array `o[key]` that passed the shape check, with their attr and index (`base`
 * is the array's attr). An array, not a generator: most platform lists are absent from most
 * accounts, and an absent one costs a type test.
 */
export function records<O extends object, K extends KeyOf<O>>(ctx: Pick<RuleContext, 'ok'>, o: O, key: K, base: string): readonly At<ItemsOf<O, K>>[] {
  const items = (o as Json)[key];
  if (!Array.isArray(items) || items.length === 0) return NONE;
  const out: At<ItemsOf<O, K>>[] = [];
  for (let i = 0; i < items.length; i++) {
    const attr = `${base}.${i}`;
    if (isRecord(items[i]) && ctx.ok(attr)) out.push([items[i] as At<ItemsOf<O, K>>[0], attr, i]);
  }
  return out;
}

const PATTERNS = new Map<string, string[]>();

/**
 * The records at a dot pattern of the Account (`supply_addresses.*.meter_points.*`, `*` an array
 * item, always after a key) that passed the shape check, with their attr and index, in payload order.
 */
export function each<P extends string>(ctx: RuleContext, pattern: P): readonly At<Typed<P>>[] {
  let parts = PATTERNS.get(pattern);
  if (parts === undefined) PATTERNS.set(pattern, (parts = pattern.split('.')));
  let level: readonly At[] = [[root(ctx), '', 0]];
  for (let p = 0; p < parts.length; p++) {
    const key = parts[p];
    const items = parts[p + 1] === '*';
    const next: At[] = [];
    for (const [record, attr] of level) {
      const value = record[key];
      if (value === undefined || value === null) continue;
      const at = attr === '' ? key : `${attr}.${key}`;
      if (!ctx.ok(at)) continue;
      if (items) next.push(...records(ctx, record, key, at));
      else if (isRecord(value)) next.push([value, at, 0]);
    }
    if (next.length === 0) return NONE;
    level = next;
    if (items) p++;
  }
  return level as readonly At<Typed<P>>[];
}
