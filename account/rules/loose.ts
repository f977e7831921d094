import type { RuleContext } from './context';

/**
 * Loose reads of the Account for the rules of the platform's fields (issue 35). The shape check
 * holds those fields to account/platformAccount.json; these readers still take a value only when
 * it has the type the rule needs, so a rule neither depends on a typed view of every platform path
 * nor crashes on a value that failed the shape check. Each record is read only where `ok(attr)`
 * says no shape error lies at or below it, as for every rule (context.ts).
 */
export type Json = Record<string, unknown>;

export function isRecord(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The account as a plain record. */
export function root(ctx: RuleContext): Json {
  return ctx.account as unknown as Json;
}

/** A string field; undefined when absent, null or of another type. */
export function text(o: Json, key: string): string | undefined {
  const v = o[key];
  return typeof v === 'string' ? v : undefined;
}

/** An integer field; undefined when absent, null or of another type. */
export function integer(o: Json, key: string): number | undefined {
  const v = o[key];
  return Number.isSafeInteger(v) ? (v as number) : undefined;
}

/** Whether a field is given (present and not null: the platform's nullable fields send null for "none"). */
export function given(o: Json, key: string): boolean {
  return o[key] !== undefined && o[key] !== null;
}

/** A record with its attr and its index in its array (0 for a record outside any array). */
export type At = [Json, string, number];

const NONE: readonly At[] = Object.freeze([]);

/**
 * The records of the array `o[key]` that passed the shape check, with their attr and index (`base`
 * is the array's attr). An array, not a generator: most platform lists are absent from most
 * accounts, and an absent one costs a type test.
 */
export function records(ctx: Pick<RuleContext, 'ok'>, o: Json, key: string, base: string): readonly At[] {
  const items = o[key];
  if (!Array.isArray(items) || items.length === 0) return NONE;
  const out: At[] = [];
  for (let i = 0; i < items.length; i++) {
    const attr = `${base}.${i}`;
    if (isRecord(items[i]) && ctx.ok(attr)) out.push([items[i] as Json, attr, i]);
  }
  return out;
}

const PATTERNS = new Map<string, string[]>();

/**
 * The records at a dot pattern of the Account (`supply_addresses.*.meter_points.*`, `*` an array
 * item, always after a key) that passed the shape check, with their attr and index, in payload order.
 */
export function each(ctx: RuleContext, pattern: string): readonly At[] {
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
  return level;
}
