import type { Debt } from '../schema';
import { okItems, type RuleContext } from './context';
import { isRecord, root } from './loose';

/**
 * The account's debt records with their attr: the spec's `debts[]` and the platform's single
 * `debt` object (the same record; the rules on a debt apply to either).
 */
export function* debtRecords(ctx: RuleContext): Generator<[Debt, string]> {
  for (const [debt, attr] of okItems(ctx, ctx.account.debts, 'debts')) yield [debt, attr];
  const single = root(ctx).debt;
  if (isRecord(single) && ctx.ok('debt')) yield [single as Debt, 'debt'];
}

/** The platform's debt_and_debts_are_defined: `debt` and `debts` are two forms of one thing, not both. */
export function checkDebtForms(ctx: RuleContext): void {
  const a = root(ctx);
  if (a.debt !== undefined && a.debt !== null && a.debts !== undefined && a.debts !== null) {
    ctx.errors.add('debt_and_debts_are_defined', 'debt', 'Give the debt either as debt (the platform\'s single object) or as debts[], not both.');
  }
}
