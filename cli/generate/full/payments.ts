import { addDays, dateTime, dayOfMonth, monthStart } from '../dates';
import { bankDetails, randomDigits } from '../identifiers';
import { pence } from '../money';
import type { FullContext, Json } from './context';
import type { FullLedger } from './ledger';
import type { Site } from './meterPoints';

/**
 * How a full account pays and owes (issue 35 areas 1, 3, 5): its Direct Debit mandate (a
 * modulus-checked sort code and account number) and a preference per ledger (each named by its
 * supply point identifier, as the platform's ledgers are), payment schedules that follow one
 * another (a debt repayment plan by instalments, a regular collection exempt from payment
 * adequacy, a balance-triggered one, and the open-ended bill-triggered one now), a payment plan and
 * a promise for the arrears, payment adequacy reviews, a deposit, a contribution scheme, the
 * debt placed with an agency and the dunning path.
 */

const LEDGER_CODE = 'MAIN';

export function mandate(ctx: FullContext, customerName: string): { instruction: Json; ddReference: string } {
  const { sortCode, accountNumber } = bankDetails(ctx.rng);
  const reference = `DDIC${randomDigits(ctx.rng, 10)}`;
  return {
    ddReference: reference,
    instruction: {
      reference,
      type: 'DIRECT_DEBIT',
      vendor: 'BOTTOMLINE_PTX',
      ledger_code: LEDGER_CODE,
      use_for_scheduled_payments: true,
      valid_from: addDays(ctx.supplyStart, -ctx.rng.int(3, 20)),
      customer_reference: customerName.slice(0, 18).toUpperCase(),
      instruction_identifier: `PI-${ctx.external}`,
      sort_code: sortCode,
      bank_account_number: accountNumber,
    },
  };
}

export function paymentPreferences(ctx: FullContext, site: Site): Json[] {
  return [
    { type: 'ACTIVE_NEW', ledger_identifier: site.electricity.mpan, instruction_reference_params: { instruction_identifier: `PI-${ctx.external}` } },
    { type: 'ACTIVE_EXISTING', ledger_identifier: site.gas.mprn, instruction_reference_params: { vendor_name: 'BOTTOMLINE_PTX', vendor_reference: `MAND-${randomDigits(ctx.rng, 8)}` } },
    { type: 'PASSIVE', ledger_identifier: site.electricity.exportMpan },
  ];
}

/** Four schedules one after another, each ending the day before the next starts; the last open-ended. */
export function paymentSchedules(ctx: FullContext, ledger: FullLedger): Json[] {
  const day = ledger.ddDay;
  const amount = pence(ledger.ddAmount);
  const start = (months: number) => dayOfMonth(ctx.supplyStart, months, day);
  const s = [start(0), start(3), start(6), start(9)];
  const end = (i: number) => addDays(s[i + 1]!, -1);
  const instalments = [0, 1, 2].map((k) => ({ payment_date: dayOfMonth(ctx.supplyStart, k, day), amount: pence(ledger.ddAmount + 1_500), payment_type: '' }));
  const common = { frequency: 'MONTHLY', means: 'DD', day_of_month: day, ledger_code: LEDGER_CODE, paid_by: 'CUSTOMER' };
  return [
    {
      ...common,
      amount: pence((ledger.ddAmount + 1_500) * 3),
      start_date: s[0],
      end_date: end(0),
      trigger: 'PLAN',
      instalments,
      is_debt_repayment_plan: true,
      debt_repayment_element: pence(1_500),
      debt_repayment_end_date: end(0),
    },
    { ...common, amount, start_date: s[1], end_date: end(1), trigger: 'REGULAR', exempt_from_payment_adequacy: true },
    { ...common, amount, start_date: s[2], end_date: end(2), trigger: 'BALANCE', balance_threshold: pence(-10_000) },
    { ...common, amount, start_date: s[3], trigger: 'BILL', delay_days: 5, delay_strategy: 'WORKING_DAYS' },
  ];
}

/** The arrears: a three-month plan from next month and a promise to pay part of it next week. */
export function arrears(ctx: FullContext, ledger: FullLedger): Json {
  const owed = Math.max(-ledger.balance, 6_000);
  const part = Math.round(owed / 3);
  const first = monthStart(ctx.today, 1);
  return {
    payment_plans: [
      {
        accepted_at: dateTime(addDays(ctx.today, -ctx.rng.int(1, 10)), ctx.rng.int(9, 17), ctx.rng.int(0, 59)),
        schedule_means: 'DD',
        strategy_name: 'ARREARS_SPREAD',
        payments: [0, 1, 2].map((k) => ({
          payment_date: dayOfMonth(first, k, ledger.ddDay),
          total_amount: part + ledger.ddAmount,
          amount_components: [
            { component_type: 'ARREARS', amount: part },
            { component_type: 'ONGOING_USAGE', amount: ledger.ddAmount },
          ],
        })),
      },
    ],
    payment_promises: [{ amount: pence(Math.round(part / 2)), payment_date: addDays(ctx.today, ctx.rng.int(3, 10)), ledger_code: LEDGER_CODE }],
  };
}

/** Two payment adequacy reviews: one applied, the latest not applied (and why). */
export function adequacyChanges(ctx: FullContext, ledger: FullLedger, mpan: string): Json[] {
  const review = (monthsAgo: number, applied: boolean) => {
    const created = addDays(ctx.today, -monthsAgo * 30);
    const elec = Math.round(ledger.ddAmount / 0.85);
    const current = Math.min(ledger.balance, 0) - monthsAgo * 500;
    const adjustment = Math.round(-current / 12);
    return {
      created_at: dateTime(created, 6, 0),
      applied_at: applied ? dateTime(addDays(created, 1), 9, 0) : null,
      should_not_be_applied_reason: applied ? null : 'Change below the 10 % threshold: the existing Direct Debit stays.',
      average_monthly_charge: elec,
      average_monthly_elec_charge: elec,
      average_monthly_gas_charge: 0,
      balance_adjustment: adjustment,
      current_balance: current,
      target_balance: 0,
      existing_direct_debit_payment: ledger.ddAmount,
      new_direct_debit: elec + adjustment,
      ledger: { ledger_code: LEDGER_CODE, ledger_identifier: mpan },
    };
  };
  return [review(6, true), review(1, false)];
}

export function deposit(ctx: FullContext): Json[] {
  const accepted = addDays(ctx.supplyStart, -ctx.rng.int(5, 20));
  const fulfilled = addDays(accepted, ctx.rng.int(1, 10));
  const interest = addDays(fulfilled, ctx.rng.int(60, 300));
  return [
    {
      deposit_amount: pence(ctx.rng.int(10, 40) * 1_000),
      reason: 'Business credit check: security deposit before supply',
      accepted_at: dateTime(accepted, 11, 20),
      fulfilled_at: dateTime(fulfilled, 14, 5),
      last_interest_date: interest > ctx.today ? ctx.today : interest,
    },
  ];
}

/** A monthly contribution to a community energy fund: the last three periods, the current one unpaid. */
export function contributions(ctx: FullContext): Json[] {
  const started = monthStart(ctx.today, -3);
  const periods = [0, 1, 2, 3].map((k) => ({
    start_date: monthStart(started, k),
    end_date: monthStart(started, k + 1),
    fulfilled_at: k < 3 ? dateTime(dayOfMonth(started, k, 2), 7, 30) : null,
  }));
  return [{ scheme: 'COMMUNITY_ENERGY_FUND', amount: '2.00', interval: 'MONTHLY', active_period_start_date: started, active_period_end_date: monthStart(started, 24), periods }];
}

/** The debt with an agency: aged in two buckets that add up to what is owed. */
export function debt(ctx: FullContext, ledger: FullLedger): Json {
  const owed = Math.max(-ledger.balance, 6_000);
  const older = Math.round(owed * 0.4);
  return {
    agency_name: ctx.rng.pick(['Northgate Recoveries', 'Pennine Credit Services']),
    start_date: addDays(ctx.today, -ctx.rng.int(20, 90)),
    is_insolvent: false,
    cais_reference: `${ctx.external}-01`,
    campaign: 'Early arrears, business',
    notes: 'Placed after a returned Direct Debit and two reminders.',
    aged_debt: [
      { debt_amount: pence(older), due_date: addDays(ledger.closing, -60) },
      { debt_amount: pence(owed - older), due_date: addDays(ledger.closing, -30) },
    ],
  };
}
