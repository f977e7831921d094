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

/** The records of the array `o[key]` that passed the shape check, with their attr and index (`base` is the array's attr). */
export function* records(ctx: RuleContext, o: Json, key: string, base: string): Generator<[Json, string, number]> {
  const items = o[key];
  if (!Array.isArray(items)) return;
  for (let i = 0; i < items.length; i++) {
    const attr = `${base}.${i}`;
    if (isRecord(items[i]) && ctx.ok(attr)) yield [items[i] as Json, attr, i];
  }
}

/**
 * The records at a dot pattern of the Account (`supply_addresses.*.property_administrators.*`,
 * `*` an array item) that passed the shape check, with their attr, in payload order.
 */
export function* each(ctx: RuleContext, pattern: string): Generator<[Json, string]> {
  yield* walk(ctx, root(ctx), pattern.split('.'), 0, '');
}

function* walk(ctx: RuleContext, value: unknown, parts: string[], i: number, attr: string): Generator<[Json, string]> {
  if (i === parts.length) {
    if (isRecord(value)) yield [value, attr];
    return;
  }
  const part = parts[i];
  if (part === '*') {
    if (!Array.isArray(value)) return;
    for (let k = 0; k < value.length; k++) {
      const at = `${attr}.${k}`;
      if (ctx.ok(at)) yield* walk(ctx, value[k], parts, i + 1, at);
    }
    return;
  }
  if (!isRecord(value)) return;
  const at = attr === '' ? part : `${attr}.${part}`;
  if (ctx.ok(at)) yield* walk(ctx, value[part], parts, i + 1, at);
}
