import type { Knex } from 'knex';
import { insertAccountItems } from '../db/stores/accountItem';
import { importedTransactionIds, nextCurrentTransactionPosition } from '../db/stores/accountTopUps';
import type { TopUpAccount } from './account';

/**
 * The tables of the post-import top-ups (docs/api.md, "Post-import top-ups"): the notes,
 * statements and transactions added after the import. What they read and write of the account
 * itself is db/stores/'s (accountLookups.ts, accountTopUps.ts, accountItem.ts). Every function
 * runs in the caller's transaction (the account locked by accountLookups.ts `lockAccountRow`).
 */

/** Whether an added note with this external_id is on the account. */
export async function hasNoteWithExternalId(trx: Knex, accountId: string, externalId: string): Promise<boolean> {
  return !!(await trx('post_import_notes').where({ account_id: accountId, external_id: externalId }).first('id'));
}

/**
 * Whether an added note with this body (and created_at, when given) is on the account.
 * `documentPaths`: a documents-only note told apart by its documents. The imported notes:
 * db/stores/accountTopUps.ts hasImportedNoteLike.
 */
export async function hasAddedNoteLike(trx: Knex, accountId: string, body: string, createdAt?: Date, documentPaths?: string[]): Promise<boolean> {
  const q = trx('post_import_notes').where({ account_id: accountId }).whereRaw(`coalesce(body, '') = ?`, [body]);
  if (createdAt !== undefined) q.where('created_at', createdAt);
  if (documentPaths !== undefined) q.whereRaw('document_paths = ?::jsonb', [JSON.stringify(documentPaths)]);
  return !!(await q.first('id'));
}

/** Adds a note; `ignoreSameExternalId`: a note with the row's external_id already there is kept (a retry). */
export async function insertNote(trx: Knex, row: Record<string, unknown>, ignoreSameExternalId = false): Promise<void> {
  const q = trx('post_import_notes').insert(row);
  if (ignoreSameExternalId) await q.onConflict(trx.raw('(account_id, external_id) WHERE external_id IS NOT NULL')).ignore();
  else await q;
}

/** The added statements of `ids`: `columns`, dates ('…_date') as 'YYYY-MM-DD'. */
export async function addedStatements(trx: Knex, accountId: string, ids: string[], columns: readonly string[]): Promise<Record<string, unknown>[]> {
  return trx('post_import_statements')
    .where({ account_id: accountId })
    .whereIn('statement_id', ids)
    .select('statement_id', ...columns.filter((c) => !c.endsWith('_date')), trx.raw(columns.filter((c) => c.endsWith('_date')).map((c) => `to_char(${c}, 'YYYY-MM-DD') AS ${c}`).join(', ')));
}

export async function insertStatement(trx: Knex, row: Record<string, unknown>): Promise<void> {
  await trx('post_import_statements').insert(row);
}

/** The transaction ids of `ids` on the account, imported or added: they share one id space. */
export async function existingTransactionIds(trx: Knex, accountId: string, ids: string[]): Promise<string[]> {
  return [
    ...(await importedTransactionIds(trx, accountId, ids)),
    ...(await trx('post_import_transactions').where({ account_id: accountId }).whereIn('transaction_id', ids).pluck('transaction_id')),
  ];
}

/** Adds a transaction; its entry id. */
export async function insertTransaction(trx: Knex, row: Record<string, unknown>): Promise<number> {
  const [inserted] = await trx('post_import_transactions').insert(row).returning('id');
  return Number(inserted.id);
}

/**
 * Adds transactions to the account itself, after the ledger's current statement transactions
 * (nextCurrentTransactionPosition): rows of `ledger_transactions` (split `current`), their line
 * items and tax items in the platform's tables under them, written by the import's own walk
 * (db/stores/accountItem.ts insertAccountItems) in two statements. The account then reads them back
 * (GET …/account/) as though it had been imported with them, and the insert forgets the account's
 * stored digest (migration 0016's triggers).
 */
export async function insertLedgerTransactions(trx: Knex, account: TopUpAccount, ledgerId: string, items: readonly Record<string, unknown>[]): Promise<void> {
  if (items.length === 0) return;
  await insertAccountItems(trx, {
    accountId: Number(account.id),
    plan: { accountNumber: account.number, importSupplier: account.importSupplier, externalAccountNumber: account.externalAccountNumber },
    table: 'ledger_transactions',
    items,
    position: await nextCurrentTransactionPosition(trx, ledgerId),
    parentId: Number(ledgerId),
    split: 'current',
  });
}

