import type { Knex } from 'knex';
import { LAYOUT } from './accountLayout';
import { placeRows, planItemRows, type PlanInput } from './accountRows';
import type { AccountTable } from './accountTables';
import type { Account } from './accountTypes';
import { allocatedIds, allocationSql, insertTablesWithUnnest } from './unnestInsert';

export interface InsertAccountItemsInput {
  accountId: number;
  /** The account's identity, for a column computed from it (a payment instruction's supplier). */
  plan: Pick<PlanInput, 'accountNumber' | 'importSupplier' | 'externalAccountNumber'>;
  /** The items' table (`ledger_transactions`), their payloads, the index of the first in its array, their parent's row id. */
  table: AccountTable;
  items: readonly Record<string, unknown>[];
  position: number;
  parentId: number;
  /** The value of the table's split column (`current` for a ledger's current statement transactions). */
  split?: string | null;
}

/**
 * Appends items to an array of an imported account, with every row under them, as insertAccount
 * writes them inside a whole account (the same walk of the descriptor, planItemRows): the account
 * reads them back (loadAccount) as though it had been imported with them. Two statements however
 * many items: the ids, then every table in one UNNEST insert. An item whose rows are computed from
 * the whole account (a customer's user number, the dunning path's id) cannot be added this way.
 */
export async function insertAccountItems(db: Knex, input: InsertAccountItemsInput): Promise<void> {
  if (input.items.length === 0) return;
  const planned = planItemRows(
    { ...input.plan, account: {} as Account, userNumbers: [], dunningProcessId: '' },
    input.table,
    input.items,
    input.position,
    input.parentId,
    input.split ?? null,
  );
  const filled = Object.entries(planned).filter(([, rows]) => rows.length > 0);
  const counts = Object.fromEntries(filled.map(([table, rows]) => [table, rows.length]));
  const allocation = allocationSql(counts);
  const allocated = await db.raw(`SELECT ${allocation.sql.join(', ')}`, allocation.bindings);
  placeRows(planned, allocatedIds((allocated.rows as Record<string, unknown>[])[0]!, counts), input.accountId, input.table);
  await insertTablesWithUnnest(
    db,
    filled.map(([table, rows]) => ({ table, columns: LAYOUT[table].pg, rows })),
  );
}
