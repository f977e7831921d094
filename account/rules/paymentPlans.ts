import type { RuleContext } from './context';
import { each, integer, records, text } from './loose';
import { londonDay } from './periods';

/**
 * The platform's payment plans (docs/spec/RULES.md, "Platform fields"). By its document: a
 * payment's amount_components, when it has any (an empty list: not broken down), add up to its
 * total_amount (payment_plan_payment_components_do_not_sum_to_total), and a plan names each
 * (payment_date, component_type) once (duplicate_payment_component_combinations). This service's:
 * no planned payment falls before the day the plan was accepted (accepted_at, its London day;
 * payment_plan_payment_before_acceptance).
 */
export function checkPaymentPlans(ctx: RuleContext): void {
  for (const [plan, attr] of each(ctx, 'payment_plans.*')) {
    const acceptedAt = text(plan, 'accepted_at');
    const acceptedDay = acceptedAt === undefined ? undefined : londonDay(acceptedAt);
    const combinations = new Set<string>();
    for (const [payment, pAttr] of records(ctx, plan, 'payments', `${attr}.payments`)) {
      const date = text(payment, 'payment_date');
      if (date !== undefined && acceptedDay !== undefined && date < acceptedDay) {
        ctx.errors.add('payment_plan_payment_before_acceptance', `${pAttr}.payment_date`, 'A planned payment falls before the plan was accepted.');
      }
      let sum = 0;
      let summable = true;
      let count = 0;
      for (const [component, cAttr] of records(ctx, payment, 'amount_components', `${pAttr}.amount_components`)) {
        count++;
        const amount = integer(component, 'amount');
        if (amount === undefined) summable = false;
        else sum += amount;
        const type = text(component, 'component_type');
        if (date === undefined || type === undefined) continue;
        const key = `${date}\u0000${type}`;
        if (combinations.has(key)) {
          ctx.errors.add('duplicate_payment_component_combinations', `${cAttr}.component_type`, `The plan has two ${type} components on ${date}.`);
        }
        combinations.add(key);
      }
      const total = integer(payment, 'total_amount');
      const components = payment.amount_components;
      // Only when every component was read: a partial sum would mislead.
      const complete = Array.isArray(components) && count === components.length;
      if (total !== undefined && count > 0 && complete && summable && sum !== total) {
        ctx.errors.add('payment_plan_payment_components_do_not_sum_to_total', `${pAttr}.total_amount`, `The components add up to ${sum}, not to total_amount ${total}.`);
      }
    }
  }
}
