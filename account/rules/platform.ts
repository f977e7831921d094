import type { RuleContext } from './context';
import { checkContracts } from './contracts';
import { checkDebtForms } from './debt';
import { checkFit } from './fit';
import { checkMeterExchanges } from './meterExchanges';
import { checkMeterPointPeriods } from './meterPointPeriods';
import { checkPaymentPlans } from './paymentPlans';
import { checkPeriodEnds } from './periods';
import { checkPlatformAccount } from './platformAccountRules';
import { checkPlatformMeters } from './platformMeters';
import { checkPlatformRefusals } from './platformRefusals';
import { checkPlatformRecords } from './platformSchedules';

/**
 * The cross-field rules of the platform's fields (issue 35; docs/spec/RULES.md, "Platform fields"):
 * a field the shape check has not accepted is not read (each rule reads only where `ok(attr)`), so
 * they apply as the schema comes to accept each platform path. The ledger form and debt rules that
 * share code with the spec's are in ledgers.ts, misc.ts and reference.ts.
 */
export function checkPlatformFields(ctx: RuleContext): void {
  checkPeriodEnds(ctx);
  checkPlatformMeters(ctx);
  checkMeterExchanges(ctx);
  checkMeterPointPeriods(ctx);
  checkContracts(ctx);
  checkPaymentPlans(ctx);
  checkFit(ctx);
  checkDebtForms(ctx);
  checkPlatformAccount(ctx);
  checkPlatformRefusals(ctx);
  checkPlatformRecords(ctx);
}
