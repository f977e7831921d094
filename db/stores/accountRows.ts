import { withZone } from '../../account/dates';
import { LAYOUT, type TableLayout } from './accountLayout';
import { toStoredLedgers } from './ledgerForm';
import type { AccountTable, PlanInput, Row } from './accountTables';

export type { PlanInput, Row } from './accountTables';
export type AccountRows = Record<AccountTable, Row[]>;

/**
 * PostgreSQL prints a numeric with its scale kept but without a '+' sign, leading zeros or a minus
 * on zero. Decimals already in that form read back from the numeric column; any other spelling
 * (a gas reading '04512') is kept as sent in the `_text` column beside it.
 */
export function isCanonicalDecimal(text: string): boolean {
  return /^-?(0|[1-9]\d*)(\.\d+)?$/.test(text) && !/^-[0.]+$/.test(text);
}

function fieldValue(item: Row, path: readonly string[]): unknown {
  let v: unknown = item;
  for (const key of path) {
    if (v === undefined || v === null) return undefined;
    v = (v as Row)[key];
  }
  return v;
}

/**
 * Turns the payload into rows, one list per table, by walking the descriptor (accountTables.ts)
 * from the account down. Every `id` and parent key holds a LOCAL index into its table's list
 * (account_id holds 0); insertAccount swaps them for allocated ids (placeRows). Within each table the rows come
 * in payload order (parent by parent), which is the order the allocated ids follow.
 */
export function planAccountRows(input: PlanInput): AccountRows {
  const planner = rowPlanner(input);
  planner.add(LAYOUT.accounts, toStoredLedgers(input.account) as unknown as Row, 0, [], 0, null);
  return planner.rows;
}

/**
 * The rows of items appended to an array of the account and everything under them, planned as
 * planAccountRows plans them inside a whole account: `table` the items' table, `position` the
 * index of the first in its array (the next ones follow), `parentId` their parent's row id (already
 * allocated: placeRows keeps it), `split` the value of the table's split column, if any. What a
 * top-up adds to an imported account (transactions with their line items and tax items) is
 * written by the same walk as the import.
 */
export function planItemRows(input: PlanInput, table: AccountTable, items: readonly Row[], position: number, parentId: number, split: string | null = null): AccountRows {
  const planner = rowPlanner(input);
  items.forEach((item, k) => planner.add(LAYOUT[table], item, position + k, [], parentId, split));
  return planner.rows;
}

function rowPlanner(input: PlanInput) {
  const rows = {} as AccountRows;
  for (const table of Object.keys(LAYOUT) as AccountTable[]) rows[table] = [];
  const add = (layout: TableLayout, item: Row, index: number, siblings: readonly Row[], parentId: number, split: string | null) => {
    const list = rows[layout.table];
    const row: Row = {};
    if (layout.owned) row.id = list.length;
    if (layout.parentColumn) row[layout.parentColumn] = parentId;
    if (layout.parentColumn && layout.parentColumn !== 'account_id') row.account_id = 0;
    if (layout.ordered) row.position = index;
    if (layout.splitColumn) row[layout.splitColumn] = split;
    for (const c of layout.columns) {
      const v = c.write ? c.write({ input, item, index, siblings }) : c.key !== null ? item[c.key] : fieldValue(item, c.field!);
      if (c.type === 'timestamptz' && typeof v === 'string') {
        // A date-time without a zone is a time in Europe/London (account/dates.ts), not the session's zone.
        row[c.name] = withZone(v);
      } else if (c.type !== 'decimal') {
        row[c.name] = v;
      } else if (v === undefined || v === null) {
        row[c.name] = null;
        row[c.textName!] = null;
      } else {
        row[c.name] = v;
        row[c.textName!] = isCanonicalDecimal(v as string) ? null : v;
      }
    }
    list.push(row);
    if (layout.children.length > 0) visit(layout, item, row.id as number);
  };

  const visit = (parent: TableLayout, object: Row, parentId: number) => {
    for (const child of parent.children) {
      const layout = LAYOUT[child];
      for (const { split, path } of layout.sources) {
        const value = object[path] as Row | Row[] | undefined;
        if (value === undefined || value === null) continue;
        if (layout.one) add(layout, value as Row, 0, [], parentId, split);
        else for (let i = 0; i < (value as Row[]).length; i++) add(layout, (value as Row[])[i]!, i, value as Row[], parentId, split);
      }
    }
  };

  return { rows, add };
}

/**
 * Swaps the local ids of planned rows (planAccountRows, planItemRows) for the ids allocated to each
 * table (allocatedIds), in place: each row's id, its account_id, and its parent's id — except the
 * parent column of `root`'s rows, which planItemRows already filled with the parent's real id.
 */
export function placeRows(planned: Partial<AccountRows>, ids: Record<string, number[]>, accountId: number, root?: AccountTable): void {
  for (const [table, list] of Object.entries(planned)) {
    if (!LAYOUT[table].owned || table === 'accounts' || !list || list.length === 0) continue;
    const tableIds = ids[table]!;
    const { parentTable, parentColumn } = LAYOUT[table];
    const parentIds = parentTable === 'accounts' || table === root ? null : ids[parentTable!]!;
    for (const r of list) {
      r.id = tableIds[r.id as number];
      r.account_id = accountId;
      if (parentIds) r[parentColumn!] = parentIds[r[parentColumn!] as number];
    }
  }
}
