import { IssueList } from '../../../account/issues';
import { shapeIndex, type RuleContext } from '../../../account/rules/context';
import type { Account } from '../../../account/schema';
import { DEFAULT_REF, example } from './helpers';

/** Today of these rule tests, as helpers.NOW gives the validator. */
export const TODAY = '2026-11-21';

/**
 * Runs one rule function on a hand-built account, as the validator would after a shape check
 * whose errors were `shapeErrors` (attrs), and answers its errors as `code@attr`. For the rules
 * of platform fields that account/schema.ts does not accept yet.
 */
export function ruleErrors(check: (ctx: RuleContext) => void, account: unknown, shapeErrors: string[] = []): string[] {
  const ctx: RuleContext = { account: account as Account, ok: shapeIndex(shapeErrors), today: TODAY, ref: DEFAULT_REF, errors: new IssueList(), patches: [] };
  check(ctx);
  return ctx.errors.items.map((e) => `${e.code}@${e.attr}`);
}

/** The example account changed by `mutate`, checked by `check`. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function ruleErrorsAfter(check: (ctx: RuleContext) => void, mutate: (a: any) => void, shapeErrors: string[] = []): string[] {
  const account = example();
  mutate(account);
  return ruleErrors(check, account, shapeErrors);
}
