import type { Knex } from 'knex';
import { LAYOUT } from './accountLayout';
import { placeRows, planItemRows, type PlanInput } from './accountRows';
import type { AccountTable } from './accountTables';
import type { Account } from './accountTypes';
import { allocatedIds, allocationSql, insertTablesWithUnnest } from './unnestInsert';

export interface InsertAccountItemInput {
  accountId: number;
  /** The account's identity, for a column computed from it (a payment instruction's supplier). */
  plan: Pick<PlanInput, 'accountNumber' | 'importSupplier' | 'externalAccountNumber'>;
  /** The item's table (`ledger_transactions`), its payload, its index in its array, its parent's row id. */
  table: AccountTable;
  item: Record<string, unknown>;
  position: number;
  parentId: number;
  /** The value of the table's split column (`current` for a ledger's current statement transactions). */
  split?: string | null;
}

/**
 * Adds one item to an array of an imported account, with every row under it, as insertAccount
 * writes it inside a whole account (the same walk of the descriptor, planItemRows): the account
 * reads it back (loadAccount) as though it had been imported with it. Two statements: the ids,
 * then every table in one UNNEST insert. Returns the item's row id. An item whose rows are computed
 * from the whole account (a customer's user number, the dunning path's id) cannot be added this way.
 */
export async function insertAccountItem(db: Knex, input: InsertAccountItemInput): Promise<number> {
  const planned = planItemRows(
    { ...input.plan, account: {} as Account, userNumbers: [], dunningProcessId: '' },
    input.table,
    input.item,
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
  return planned[input.table]![0]!.id as number;
}
