import type { ItemContext, RuleContext } from './context';
import { sumEquals } from './decimal';
import { each, given, records, text, type Json } from './loose';

const MP = 'supply_addresses.*.meter_points.*';
const TRANSACTIONS = ['current_statement_transactions.*', 'historical_statement_transactions.*'].flatMap((t) => [t, `ledgers.*.${t}`]);
const OFFICIAL = ['official_reference_number', 'official_entity', 'official_status'] as const;

/**
 * The platform's validators of payment schedules, meter points, complaints and transactions
 * (docs/spec/RULES.md, "The platform's fields"), each with the platform's code; pure payload rules.
 */
export function checkPlatformRecords(ctx: RuleContext): void {
  checkSchedules(ctx);
  for (const [mp, attr] of each(ctx, MP)) {
    // The attr of agents_and_mpids_to_appoint_provided is agents: the MPIDs to appoint are the older form.
    const end = text(mp, 'supply_end_date');
    if (end !== undefined && end > ctx.today) ctx.errors.add('future_supply_end_date', `${attr}.supply_end_date`, 'A meter point\'s supply ends today or earlier, or has no end date.');
    const appoint = (['dc_to_appoint', 'mam_to_appoint', 'mop_to_appoint'] as const).find((key) => given(mp, key));
    if (given(mp, 'agents') && appoint !== undefined) {
      ctx.errors.add('agents_and_mpids_to_appoint_provided', `${attr}.agents`, 'Send the agents\' contracts or the MPIDs to appoint, not both.');
    }
  }
  for (const [complaint, attr] of each(ctx, 'complaints.*')) {
    if (!OFFICIAL.some((key) => given(complaint, key))) continue;
    for (const key of OFFICIAL) {
      if (!given(complaint, key)) ctx.errors.add('official_complaint_field_missing', `${attr}.${key}`, 'An official complaint needs its official_reference_number, official_entity and official_status.');
    }
  }
  for (const pattern of TRANSACTIONS) {
    for (const [transaction, attr] of each(ctx, pattern)) checkPlatformTransaction(ctx, transaction, attr);
  }
}

/** A transaction not dated after today; its line items' units two values. Also a top-up's transaction's rules (rules/ledgers.ts checkTransactionItem). */
export function checkPlatformTransaction(ctx: ItemContext, transaction: Json, attr: string): void {
  const date = text(transaction, 'transaction_date');
  if (date !== undefined && date > ctx.today) ctx.errors.add('transaction_in_future', `${attr}.transaction_date`, 'The transaction date is in the future.');
  for (const [item, iAttr] of records(ctx, transaction, 'line_items', `${attr}.line_items`)) {
    const units = item.units;
    if (Array.isArray(units) && units.length !== 2) ctx.errors.add('line_item_units_must_be_two_values', `${iAttr}.units`, 'A line item\'s units are two values.');
  }
}

/**
 * A schedule's instalments add up to its amount and fall within its active period (start_date to
 * end_date, both inclusive); a delay (delay_strategy) needs delay_days and the BILL trigger; the
 * BALANCE trigger needs balance_threshold.
 */
function checkSchedules(ctx: RuleContext): void {
  for (const [schedule, attr] of each(ctx, 'payment_schedules.*')) {
    const trigger = text(schedule, 'trigger');
    if (given(schedule, 'delay_strategy')) {
      if (!given(schedule, 'delay_days')) ctx.errors.add('payment_schedule_delay_strategy_missing_delay_days', `${attr}.delay_days`, 'A delay strategy needs delay_days.');
      if (trigger !== 'BILL') ctx.errors.add('payment_schedule_delay_must_have_bill_trigger', `${attr}.delay_strategy`, 'A delayed schedule is triggered by a bill: trigger must be BILL.');
    }
    if (trigger === 'BALANCE' && !given(schedule, 'balance_threshold')) {
      ctx.errors.add('balance_triggered_schedule_missing_threshold', `${attr}.balance_threshold`, 'A balance-triggered schedule needs the balance_threshold that triggers a payment.');
    }
    const instalments = records(ctx, schedule, 'instalments', `${attr}.instalments`);
    if (instalments.length === 0) continue;
    const start = text(schedule, 'start_date');
    const end = text(schedule, 'end_date');
    const amounts: string[] = [];
    for (const [instalment, iAttr] of instalments) {
      const amount = text(instalment, 'amount');
      if (amount !== undefined) amounts.push(amount);
      const date = text(instalment, 'payment_date');
      if (date !== undefined && ((start !== undefined && date < start) || (end !== undefined && date > end))) {
        ctx.errors.add('payment_instalments_date_outside_of_payment_schedule_active_period', `${iAttr}.payment_date`, 'An instalment falls outside its schedule\'s start_date to end_date.');
      }
    }
    const total = text(schedule, 'amount');
    const all = Array.isArray(schedule.instalments) && amounts.length === schedule.instalments.length;
    if (total !== undefined && all && !sumEquals(amounts, total)) {
      ctx.errors.add('payment_instalments_do_not_sum_to_total', `${attr}.instalments`, `The instalments do not add up to the schedule's amount ${total}.`);
    }
  }
}
