import type { Ledger, Transaction } from '../schema';
import { list, okItems, type ItemContext, type RuleContext } from './context';
import { checkPlatformTransaction } from './platformSchedules';
import { sumEquals } from './decimal';
import { given, isRecord, records, root, text, type Json } from './loose';

const TRANSACTION_LISTS = ['current_statement_transactions', 'historical_statement_transactions'] as const;

/** The platform's ledger form: these fields at the top of the Account, one ledger (the spec's form is ledgers[]). */
export const TOP_LEVEL_LEDGER_FIELDS = [...TRANSACTION_LISTS, 'last_statement_balance', 'last_statement_closing_date', 'last_statement_issue_date'] as const;

/** A ledger's statement fields with the attr prefix they sit under (`ledgers.0.`, or '' at the top). */
interface LedgerAt {
  ledger: Pick<Partial<Ledger>, (typeof TOP_LEVEL_LEDGER_FIELDS)[number]>;
  prefix: string;
}

/**
 * Ledger rules, on each ledger of ledgers[] and on the platform's top-level form alike: transaction
 * ids present and unique across every ledger, statement dates, a line item not ending before it
 * starts; the two forms not mixed (ledger_forms_mixed, at the first top-level field given: an
 * account sends its ledgers in one form). The balance rule, ledger balances summing to the
 * transfer balance, is the spec's form's (the top-level form has no ledger_balance); it runs only
 * when every ledger and the transfer balance passed the shape check (a partial sum would mislead)
 * and at least one ledger is given.
 */
export function checkLedgers(ctx: RuleContext): void {
  const ledgers: LedgerAt[] = [];
  const balances: string[] = [];
  for (const [ledger, attr] of okItems(ctx, ctx.account.ledgers, 'ledgers')) {
    ledgers.push({ ledger, prefix: `${attr}.` });
    balances.push(ledger.ledger_balance);
  }
  const a = root(ctx);
  const topLevel = TOP_LEVEL_LEDGER_FIELDS.filter((f) => given(a, f));
  if (topLevel.length > 0) {
    if (list(ctx.account.ledgers).length > 0) {
      ctx.errors.add('ledger_forms_mixed', topLevel[0], 'The ledger is given both at the top of the Account (the platform\'s form) and in ledgers[]: send one form.');
    }
    const ledger: Json = {};
    for (const f of topLevel) if (ctx.ok(f)) ledger[f] = a[f];
    ledgers.push({ ledger: ledger as LedgerAt['ledger'], prefix: '' });
  }

  const ids = new Set<string>();
  for (const { ledger, prefix } of ledgers) {
    for (const field of TRANSACTION_LISTS) {
      const txs: Transaction[] = list(ledger[field]);
      for (let t = 0; t < txs.length; t++) {
        if (!isRecord(txs[t])) continue;
        const txAttr = `${prefix}${field}.${t}`;
        const id = txs[t].transaction_id;
        if (id === undefined) ctx.errors.add('missing_transaction_id', `${txAttr}.transaction_id`, 'Every transaction needs a transaction_id.');
        else if (ids.has(id)) ctx.errors.add('duplicate_transaction_ids', `${txAttr}.transaction_id`, `Transaction id ${id} is used twice.`);
        else ids.add(id);
        checkLineItems(ctx, txs[t] as unknown as Json, txAttr);
      }
    }
    checkStatementDates(ctx, ledger, prefix);
  }

  const transfer = ctx.account.transfer_balance;
  const allLedgersOk = ctx.ok('ledgers') && Array.isArray(ctx.account.ledgers);
  if (allLedgersOk && balances.length > 0 && transfer !== undefined && ctx.ok('transfer_balance')) {
    if (!sumEquals(balances, transfer)) {
      ctx.errors.add('ledger_balances_not_equal_to_transfer_balance', 'transfer_balance', 'The ledger balances do not add up to transfer_balance.');
    }
  }
}

function checkStatementDates(ctx: RuleContext, ledger: LedgerAt['ledger'], prefix: string): void {
  const closing = ledger.last_statement_closing_date;
  if (closing === undefined) return;
  if (ledger.last_statement_issue_date !== undefined && ledger.last_statement_issue_date < closing) {
    ctx.errors.add('last_statement_issued_before_closing_date', `${prefix}last_statement_issue_date`, 'The last statement is issued before its closing date.');
  }
  const historical = list(ledger.historical_statement_transactions);
  for (let t = 0; t < historical.length; t++) {
    if (isRecord(historical[t]) && historical[t].transaction_date > closing) {
      ctx.errors.add(
        'historical_statement_transaction_after_last_statement_closing_date',
        `${prefix}historical_statement_transactions.${t}.transaction_date`,
        'A historical statement transaction is dated after the last statement closing date.',
      );
    }
  }
}

/**
 * The rules of one transaction on its own, apart from its ledger (ids, statement dates): what a
 * top-up holds each of its transactions to (topUps/transactions.ts), as the Account's
 * rules hold an imported one — line items not ending before they start, units two values, the
 * date not after today. The Account runs the two halves where they were written (checkLedgers,
 * checkPlatformRecords), which keeps its errors in their order.
 */
export function checkTransactionItem(ctx: ItemContext, tx: Json, txAttr: string): void {
  checkLineItems(ctx, tx, txAttr);
  checkPlatformTransaction(ctx, tx, txAttr);
}

/** The platform's line items of a transaction: none ends before it starts (its start_date_later_than_end_date). */
function checkLineItems(ctx: ItemContext, tx: Json, txAttr: string): void {
  if (!Array.isArray(tx.line_items)) return; // most transactions: no generator for them
  for (const [item, attr] of records(ctx, tx, 'line_items', `${txAttr}.line_items`)) {
    const start = text(item, 'start_date');
    const end = text(item, 'end_date');
    if (start !== undefined && end !== undefined && end < start) ctx.errors.add('start_date_later_than_end_date', `${attr}.end_date`, 'The end date is before the start date.');
  }
}
