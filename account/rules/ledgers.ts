import type { Transaction } from '../schema';
import { list, okItems, type RuleContext } from './context';
import { sumEquals } from './decimal';

const TRANSACTION_LISTS = ['current_statement_transactions', 'historical_statement_transactions'] as const;

/**
 * Ledger rules: transaction ids present and unique across all ledgers, ledger balances summing to
 * the transfer balance, statement dates. The balance rule runs only when every ledger and the
 * transfer balance passed the shape check (a partial sum would mislead) and at least one ledger
 * is given.
 */
export function checkLedgers(ctx: RuleContext): void {
  const ids = new Set<string>();
  let allLedgersOk = ctx.ok('ledgers');
  const balances: string[] = [];
  for (const [ledger, attr] of okItems(ctx, ctx.account.ledgers, 'ledgers')) {
    balances.push(ledger.ledger_balance);
    for (const field of TRANSACTION_LISTS) {
      const txs: Transaction[] = list(ledger[field]);
      for (let t = 0; t < txs.length; t++) {
        const id = txs[t].transaction_id;
        const idAttr = `${attr}.${field}.${t}.transaction_id`;
        if (id === undefined) ctx.errors.add('missing_transaction_id', idAttr, 'Every transaction needs a transaction_id.');
        else if (ids.has(id)) ctx.errors.add('duplicate_transaction_ids', idAttr, `Transaction id ${id} is used twice.`);
        else ids.add(id);
      }
    }
    const closing = ledger.last_statement_closing_date;
    if (closing !== undefined) {
      if (ledger.last_statement_issue_date !== undefined && ledger.last_statement_issue_date < closing) {
        ctx.errors.add(
          'last_statement_issued_before_closing_date',
          `${attr}.last_statement_issue_date`,
          'The last statement is issued before its closing date.',
        );
      }
      const historical = list(ledger.historical_statement_transactions);
      for (let t = 0; t < historical.length; t++) {
        if (historical[t].transaction_date > closing) {
          ctx.errors.add(
            'historical_statement_transaction_after_last_statement_closing_date',
            `${attr}.historical_statement_transactions.${t}.transaction_date`,
            'A historical statement transaction is dated after the last statement closing date.',
          );
        }
      }
    }
  }
  if (!Array.isArray(ctx.account.ledgers)) allLedgersOk = false;
  const transfer = ctx.account.transfer_balance;
  if (allLedgersOk && balances.length > 0 && transfer !== undefined && ctx.ok('transfer_balance')) {
    if (!sumEquals(balances, transfer)) {
      ctx.errors.add('ledger_balances_not_equal_to_transfer_balance', 'transfer_balance', 'The ledger balances do not add up to transfer_balance.');
    }
  }
}
