import type { Account } from '../schema';
import type { ReferenceData } from '../referenceData';
import { IssueList } from '../issues';

/** A normalised value to write into the copy of the account (copy-on-write, see normalise.ts). */
export interface Patch {
  path: (string | number)[];
  value: unknown;
}

/**
 * What every domain rule receives. The account may have failed the shape check in places:
 * a rule reads a subtree only when `ok(attr)` says no shape error lies at or below it, so rules
 * can trust the schema types there and never crash on a malformed payload.
 */
export interface RuleContext {
  account: Account;
  ok(attr: string): boolean;
  /** Today's calendar day in Europe/London, `YYYY-MM-DD`. */
  today: string;
  ref: ReferenceData;
  errors: IssueList;
  patches: Patch[];
}

/**
 * What a rule of one record on its own needs (no account around it): a top-up's transaction is held
 * to the Account's rules of a transaction through it (topUps/transactions.ts).
 */
export type ItemContext = Pick<RuleContext, 'ok' | 'today' | 'errors'>;

/** Builds `ok` from the attrs of shape errors: every prefix of an error attr is "not ok". */
export function shapeIndex(errorAttrs: readonly string[]): (attr: string) => boolean {
  if (errorAttrs.length === 0) return () => true;
  const bad = new Set<string>();
  for (const attr of errorAttrs) {
    let i = attr.indexOf('.');
    while (i !== -1) {
      bad.add(attr.slice(0, i));
      i = attr.indexOf('.', i + 1);
    }
    bad.add(attr);
  }
  return (attr) => !bad.has(attr);
}

/** The array at a field, or an empty one when absent or not an array (shape error reported elsewhere). */
export function list<T>(value: T[] | undefined): T[] {
  return Array.isArray(value) ? value : [];
}

/**
 * Iterates the items of an array field that passed the shape check, with their attr.
 * `base` is the attr of the array itself.
 */
export function* okItems<T>(ctx: RuleContext, value: T[] | undefined, base: string): Generator<[T, string, number]> {
  const items = list(value);
  for (let i = 0; i < items.length; i++) {
    const attr = `${base}.${i}`;
    if (ctx.ok(attr)) yield [items[i], attr, i];
  }
}
