import type { Account } from './accountTypes';
import type { PgType } from './unnestInsert';

/** The vocabulary of the Account's storage descriptor (accountTables.ts). */

export type Row = Record<string, unknown>;

export interface PlanInput {
  accountNumber: string;
  importSupplier: string;
  externalAccountNumber: string;
  account: Account;
  userNumbers: string[];
  dunningProcessId: string;
}

/** What a column not copied from its payload field is written from. */
export interface WriteContext {
  input: PlanInput;
  /** The payload object the row comes from, its index and the array it is in. */
  item: Row;
  index: number;
  siblings: readonly Row[];
}

/**
 * 'decimal' is two columns: `name` numeric (queryable) and `name_text` holding the text as sent
 * when PostgreSQL would print it otherwise (see isCanonicalDecimal); read back, the text wins.
 */
export type ColumnType = Exclude<PgType, 'numeric'> | 'decimal';

export interface ColumnSpec {
  type: ColumnType;
  /**
   * Dot path of the payload field, relative to the table's object. Default: the column's name, or,
   * for a column with `write`, none (computed, not read back).
   */
  field?: string;
  /** Computed instead of copied from the field. */
  write?: (c: WriteContext) => unknown;
  /** NOT NULL in the migration (checked by the test; the store writes what the payload gives). */
  notNull?: boolean;
}

export interface TableSpec {
  /**
   * The parent table whose rows own these (its id in `<parent's singular>_id`, see PARENT_COLUMN);
   * none: the account (account_id).
   */
  parent?: string;
  /** The parent object's field holding this table's payload: an array, or one object (`one`). */
  path?: string;
  one?: boolean;
  /** A required array of account/schema.ts: read back even when empty. */
  required?: boolean;
  /** Rows gathered from several arrays of the parent, told apart by a column (value → path). */
  split?: { column: string; paths: Readonly<Record<string, string>> };
  /** Keyed by the account number instead of owned through account_id (migration 0002's table). */
  byAccountNumber?: boolean;
  columns: Readonly<Record<string, ColumnType | ColumnSpec>>;
}
