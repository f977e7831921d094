import type { Knex } from 'knex';

/**
 * What the post-import additions (topUps/, paymentInstructions/) read and write of the Account's
 * own tables (issue 51: one owner per table): its payment instructions, imported notes and
 * statements, its first ledger and its current statement transactions. Every function runs in the
 * caller's transaction (the account locked by accountLookups.ts lockAccountRow).
 */

/** The account's payment instructions in payload order (paymentInstructions/paymentInstruction.ts). */
export async function paymentInstructionsOf(trx: Knex, accountId: string): Promise<Record<string, unknown>[]> {
  return (await trx('payment_instructions').where({ account_id: accountId }).orderBy('position')) as Record<string, unknown>[];
}

export async function insertPaymentInstruction(trx: Knex, row: Record<string, unknown>): Promise<void> {
  await trx('payment_instructions').insert(row);
}

/** Whether an imported note (`notes`) with this body (and created_at, when given) is on the account. */
export async function hasImportedNoteLike(trx: Knex, accountId: string, body: string, createdAt?: Date): Promise<boolean> {
  const q = trx('notes').where({ account_id: accountId }).whereRaw(`coalesce(body, '') = ?`, [body]);
  if (createdAt !== undefined) q.where('created_at', createdAt);
  return !!(await q.first('id'));
}

/** The statement ids of `ids` the import brought (`statements`). */
export async function importedStatementIds(trx: Knex, accountId: string, ids: string[]): Promise<string[]> {
  return trx('statements').where({ account_id: accountId }).whereIn('statement_id', ids).pluck('statement_id');
}

export interface LedgerRow {
  id: string;
  position: number;
  last_statement_closing_date: string | null;
}

/** The account's first ledger, locked; undefined when it has none. */
export async function lockFirstLedger(trx: Knex, accountId: string): Promise<LedgerRow | undefined> {
  return (await trx('ledgers')
    .where({ account_id: accountId })
    .orderBy('position')
    .forUpdate()
    .first('id', 'position', trx.raw(`to_char(last_statement_closing_date, 'YYYY-MM-DD') AS last_statement_closing_date`))) as LedgerRow | undefined;
}

/** The transaction ids of `ids` the import brought (`ledger_transactions`). */
export async function importedTransactionIds(trx: Knex, accountId: string, ids: string[]): Promise<string[]> {
  return trx('ledger_transactions').where({ account_id: accountId }).whereIn('transaction_id', ids).pluck('transaction_id');
}

/** Where the ledger's next current statement transaction goes: after the last one (imported or added). */
export async function nextCurrentTransactionPosition(trx: Knex, ledgerId: string): Promise<number> {
  const row = (await trx('ledger_transactions').where({ ledger_id: ledgerId, statement: 'current' }).max({ p: 'position' }).first()) as { p: number | null } | undefined;
  return row?.p === null || row?.p === undefined ? 0 : Number(row.p) + 1;
}

/** Moves the ledger's balance by `delta` pence: numeric arithmetic in PostgreSQL (exact); the original text no longer describes it. */
export async function moveLedgerBalance(trx: Knex, ledgerId: string, deltaPence: number): Promise<void> {
  await trx('ledgers')
    .where({ id: ledgerId })
    .update({ ledger_balance: trx.raw('coalesce(ledger_balance, 0) + ?::numeric', [(deltaPence / 100).toFixed(2)]), ledger_balance_text: null });
}
