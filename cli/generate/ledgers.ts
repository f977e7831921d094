import type { Ledger, PaymentSchedule, Transaction } from '../../account/schema';
import { addDays, daysBetween, dayOfMonth, monthStart } from './dates';
import { pence } from './money';
import type { Rng } from './rng';

/**
 * Ledgers whose balances are the signed sums of their transactions (payments and credits raise
 * the balance, charges and refunds lower it; a negative balance is money owed), so Σ ledger
 * balances = transfer_balance holds by construction. Transactions up to the last statement's
 * closing date are "historical", later ones "current".
 */

export interface LedgerPlan {
  externalAccountNumber: string;
  today: string;
  supplyStart: string;
  /** Closing date of the last statement (= last billed day). */
  closing: string;
  transactions: number;
  ledgers: number;
  prepay: boolean;
}

export interface GeneratedLedgers {
  ledgers: Ledger[];
  /** Σ ledger balances, in pence. */
  transferBalance: number;
}

const SIGN: Record<Transaction['type'], 1 | -1> = { PAYMENT: 1, CREDIT: 1, CHARGE: -1, REPAYMENT: -1 };

function transaction(rng: Rng, plan: LedgerPlan, id: string, date: string): [Transaction, number] {
  const roll = rng.next();
  let tx: Transaction;
  let amount: number;
  if (roll < 0.45) {
    amount = rng.int(4_000, 15_000);
    tx = plan.prepay
      ? { transaction_id: id, transaction_date: date, amount: pence(amount), type: 'PAYMENT', reason: 'PREPAY_TOP_UP', payment_type: rng.pick(['PAYPOINT', 'PAYZONE', 'CARD'] as const) }
      : { transaction_id: id, transaction_date: date, amount: pence(amount), type: 'PAYMENT', reason: 'ACCOUNT_CHARGE_PAYMENT', payment_type: rng.chance(0.85) ? 'DD' : 'CARD' };
  } else if (roll < 0.87) {
    amount = rng.int(3_000, 16_000);
    tx = { transaction_id: id, transaction_date: date, amount: pence(amount), type: 'CHARGE', reason: rng.pick(['ENERGY_CHARGE', 'STANDING_CHARGE']) };
  } else if (roll < 0.97) {
    amount = rng.int(100, 2_500);
    tx = { transaction_id: id, transaction_date: date, amount: pence(amount), type: 'CREDIT', reason: rng.pick(['DIRECT_DEBIT_DISCOUNT', 'GOODWILL_CREDIT']) };
  } else {
    amount = rng.int(1_000, 10_000);
    tx = { transaction_id: id, transaction_date: date, amount: pence(amount), type: 'REPAYMENT', reason: 'FULL_CREDIT_REFUND', payment_type: 'BANK_TRANSFER' };
  }
  return [tx, SIGN[tx.type] * amount];
}

export function generateLedgers(rng: Rng, plan: LedgerPlan): GeneratedLedgers {
  const span = daysBetween(plan.supplyStart, plan.today);
  const dates: string[] = [];
  for (let i = 0; i < plan.transactions; i++) dates.push(addDays(plan.supplyStart, rng.int(0, span)));
  dates.sort();
  const ledgers: Ledger[] = [];
  let transferBalance = 0;
  let next = 0;
  for (let l = 0; l < plan.ledgers; l++) {
    // The first ledger takes the larger share; every ledger gets at least two transactions.
    const remaining = plan.ledgers - l - 1;
    const share = remaining === 0 ? dates.length - next : Math.max(2, Math.floor((dates.length - next) * 0.7));
    const historical: Transaction[] = [];
    const current: Transaction[] = [];
    let statementBalance = 0;
    let balance = 0;
    for (const date of dates.slice(next, next + share)) {
      next++;
      const id = `TX-${plan.externalAccountNumber}-${String(next).padStart(6, '0')}`;
      const [tx, signed] = transaction(rng, plan, id, date);
      balance += signed;
      if (date <= plan.closing) {
        historical.push(tx);
        statementBalance += signed;
      } else current.push(tx);
    }
    transferBalance += balance;
    const issue = addDays(plan.closing, rng.int(1, 4));
    ledgers.push({
      current_statement_transactions: current,
      historical_statement_transactions: historical,
      last_statement_closing_date: plan.closing,
      last_statement_balance: pence(statementBalance),
      last_statement_issue_date: issue <= plan.today ? issue : plan.today,
      ledger_balance: pence(balance),
    });
  }
  return { ledgers, transferBalance };
}

/**
 * Credit accounts pay by monthly direct debit (one open-ended schedule). Some paid off arrears
 * under a debt repayment plan first, which ended the day before the direct debit started.
 */
export function paymentSchedules(rng: Rng, plan: { supplyStart: string; lastBilled: string }): PaymentSchedule[] {
  const day = rng.int(1, 28);
  const amount = pence(rng.int(40, 180) * 100);
  const planEnd = monthStart(plan.supplyStart, 6);
  if (planEnd < plan.lastBilled && rng.chance(0.2)) {
    const ddStart = dayOfMonth(plan.supplyStart, 6, day);
    return [
      {
        amount: pence(rng.int(10, 40) * 100),
        day_of_month: day,
        frequency: 'MONTHLY',
        means: 'DD',
        start_date: dayOfMonth(plan.supplyStart, 0, day),
        is_debt_repayment_plan: true,
        debt_repayment_element: 'ARREARS',
        debt_repayment_end_date: addDays(ddStart, -1),
      },
      { amount, day_of_month: day, frequency: 'MONTHLY', means: 'DD', start_date: ddStart },
    ];
  }
  return [{ amount, day_of_month: day, frequency: 'MONTHLY', means: 'DD', start_date: dayOfMonth(plan.supplyStart, 0, day) }];
}
