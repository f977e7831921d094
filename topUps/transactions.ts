import type { Knex } from 'knex';
import { londonToday, nextDay } from '../account/dates';
import type { ItemContext } from '../account/rules/context';
import { checkTransactionItem } from '../account/rules/ledgers';
import { DECIMAL_RE } from '../account/ajv';
import type { IssueList } from '../account/issues';
import { enqueueEvents, type NewEvent } from '../events/outbox';
import { accountOrderingKey } from '../events/orderingKey';
import { ledgerNumber } from '../events/ledgerNumber';
import type { TopUpAccount } from './account';
import { TransactionsRequestSchema, type TopUpTransaction, type TopUpTransactionType, type TransactionsRequest } from './schemas';
import { bodyChecker } from '../http/validation';
import { checkIds } from './validate';
import { type LedgerRow, lockFirstLedger, moveLedgerBalance } from '../db/stores/accountTopUps';
import { existingTransactionIds, insertLedgerTransactions, insertNote, insertTransaction } from './store';

export type TransactionStatus = 'TRANSACTION_ADDED_TO_ACCOUNT' | 'TRANSACTION_ALREADY_EXISTS' | 'TRANSACTION_IMPORT_ERROR';

export interface TransactionResult {
  status: TransactionStatus;
  transaction_data: TopUpTransaction;
  added_transaction_id?: number;
  error_detail?: string;
}

export interface TransactionOptions {
  /** Platform default true: a transaction_id already on the account answers TRANSACTION_ALREADY_EXISTS. */
  checkPreviouslyAdded: boolean;
  /** Platform default true: a date inside a closed statement period is moved into the open one. */
  forceAddToCurrentStatement: boolean;
  subjectPrefix: string;
  now: Date;
}

/** Balance direction of each type: ledger balances are credit-positive (spec: transfer_balance). */
const SIGN: Record<TopUpTransactionType, 1 | -1> = { CREDIT: 1, PAYMENT: 1, CHARGE: -1, SUPPLY_CHARGE: -1, REPAYMENT: -1 };

export const checkTransactionsBody = bodyChecker<TransactionsRequest>(TransactionsRequestSchema, (body, issues: IssueList) => {
  checkIds(body.transactions, 'transactions', 'transaction_id', issues, { missing: 'missing_transaction_id', duplicate: 'duplicate_transaction_ids' });
  // The Account's rules of one transaction (line items, units, not dated after today), per item;
  // the body passed the shape check, so every part of it is ok to read.
  const item: ItemContext = { ok: () => true, today: londonToday(new Date()), errors: issues };
  body.transactions.forEach((t, i) => {
    const amount = String(t.amount);
    if (!DECIMAL_RE.test(amount)) issues.add('invalid_decimal', `transactions.${i}.amount`, 'Not a valid decimal.');
    else if (Number(amount) <= 0) issues.add('min_value', `transactions.${i}.amount`, 'The amount is positive; the type gives the direction.');
    else if (/\.\d{3,}$/.test(amount)) issues.add('max_decimal_places', `transactions.${i}.amount`, 'At most 2 decimal places.');
    checkTransactionItem(item, t, `transactions.${i}`);
  });
});

/**
 * Adds the transactions to the account's first ledger (the one the platform's single-ledger
 * accounts have) in the caller's transaction, with one `billing.ledger.entry_posted` v2 event per
 * added transaction and the ledger balance moved by their sum — all or nothing. The account row is
 * locked by the caller, so a concurrent or retried request sees this one's rows.
 */
export async function addTransactions(trx: Knex, account: TopUpAccount, req: TransactionsRequest, opts: TransactionOptions): Promise<TransactionResult[]> {
  const ledger = await lockFirstLedger(trx, account.id);
  const ids = req.transactions.map((t) => t.transaction_id!);
  // Imported and topped-up transactions share the id space of the account.
  const existing = new Set<string>(await existingTransactionIds(trx, account.id, ids));

  const results: TransactionResult[] = [];
  const events: NewEvent[] = [];
  const movedNotes: { transactionId: string; from: string; to: string }[] = [];
  let delta = 0;
  // The added transactions as the account holds them, written together after the loop.
  const onAccount: Record<string, unknown>[] = [];
  for (const t of req.transactions) {
    const id = t.transaction_id!;
    if (!ledger) {
      results.push({ status: 'TRANSACTION_IMPORT_ERROR', transaction_data: t, error_detail: 'The account has no ledger to add transactions to.' });
      continue;
    }
    if (existing.has(id)) {
      results.push(
        opts.checkPreviouslyAdded
          ? { status: 'TRANSACTION_ALREADY_EXISTS', transaction_data: t }
          : // Unchecked, the platform would add it twice; ids stay unique here, so it is refused.
            { status: 'TRANSACTION_IMPORT_ERROR', transaction_data: t, error_detail: `Transaction ${id} is already on the account.` },
      );
      continue;
    }
    let date = t.transaction_date;
    const closing = ledger.last_statement_closing_date;
    if (closing !== null && date <= closing) {
      if (!opts.forceAddToCurrentStatement) {
        results.push({
          status: 'TRANSACTION_IMPORT_ERROR',
          transaction_data: t,
          error_detail: `${date} is not within the open statement period, which starts after ${closing}.`,
        });
        continue;
      }
      date = nextDay(closing);
      movedNotes.push({ transactionId: id, from: t.transaction_date, to: date });
    }
    const amount = String(t.amount);
    const entryId = await insertTransaction(trx, {
      account_id: account.id,
      ledger_id: ledger.id,
      transaction_id: id,
      transaction_date: date,
      requested_date: date === t.transaction_date ? null : t.transaction_date,
      amount,
      type: t.type,
      reason: t.reason,
      payment_type: t.payment_type,
      reference: t.reference,
      display_note: date === t.transaction_date ? t.display_note : [t.display_note, `Dated ${t.transaction_date}; moved to ${date}, the open statement period.`].filter(Boolean).join(' '),
      note: t.note,
      created_at: opts.now,
    });
    const added = { ...t, transaction_date: date };
    // On the account itself too, as the response echoes it (the date it was added on; display_note
    // as sent, the move being the pinned note's): post_import_transactions above is the top-up's
    // record (the entry id of the event, the requested date), this row and its line items and tax
    // items are the account's transaction, read back and digested like an imported one.
    onAccount.push({ ...added, amount });
    existing.add(id);
    delta += SIGN[t.type] * Math.round(Number(amount) * 100);
    results.push({ status: 'TRANSACTION_ADDED_TO_ACCOUNT', transaction_data: added, added_transaction_id: entryId });
    events.push(entryPostedEvent(account, ledger, entryId, t, id, opts.now));
  }

  if (ledger) await insertLedgerTransactions(trx, account, ledger.id, onAccount);
  if (ledger && delta !== 0) {
    await moveLedgerBalance(trx, ledger.id, delta);
  }
  for (const m of movedNotes) {
    // The platform pins a note to the account for each moved transaction; a retry finds it by its id.
    await insertNote(
      trx,
      {
        account_id: account.id,
        external_id: `transaction-date-moved:${m.transactionId}`,
        body: `Transaction ${m.transactionId} dated ${m.from} was added to the open statement period on ${m.to}.`,
        created_at: opts.now,
        created_at_given: false,
        is_pinned: true,
      },
      true,
    );
  }
  await enqueueEvents(trx, opts.subjectPrefix, events);
  return results;
}

function entryPostedEvent(account: TopUpAccount, ledger: LedgerRow, entryId: number, t: TopUpTransaction, id: string, now: Date): NewEvent {
  return {
    type: 'billing.ledger.entry_posted',
    version: 'v2',
    key: `post-import:transaction:${account.number}:${id}`,
    orderingKey: accountOrderingKey(account.importSupplier, account.externalAccountNumber),
    occurredAt: now,
    data: {
      ledger: { account: { number: account.number }, number: ledgerNumber(account.number, ledger.position), id: String(ledger.id) },
      entry: {
        id: entryId,
        is_charge: t.type === 'CHARGE' || t.type === 'SUPPLY_CHARGE',
        is_credit: t.type === 'CREDIT',
        is_payment: t.type === 'PAYMENT',
        is_repayment: t.type === 'REPAYMENT',
        is_reversal: false,
        is_reversed: false,
        source_type: 'data_import',
      },
    },
  };
}
