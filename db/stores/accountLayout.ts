import { PARENT_COLUMN, TABLE_SPECS, type AccountTable, type ColumnType, type Row, type WriteContext } from './accountTables';
import type { Columns, PgType } from './unnestInsert';

/**
 * The descriptor of accountTables.ts worked out once at start-up into what the insert and the
 * read-back loop over: every column with its PostgreSQL type (decimals as their two columns), the
 * keys each table carries (id, account_id, position, the parent's id) and the payload sources.
 */

export interface LayoutColumn {
  name: string;
  type: ColumnType;
  /** The payload field's path, split at dots; null: computed, not read back. */
  field: readonly string[] | null;
  /** The field's name when it is a direct property of the table's object (the common case). */
  key: string | null;
  write?: (c: WriteContext) => unknown;
  notNull: boolean;
  /** A decimal's `<name>_text` column. */
  textName: string | null;
}

export interface TableLayout {
  table: AccountTable;
  /** The table whose local id the parent column holds; 'accounts' for the account's own rows. */
  parentTable: AccountTable | null;
  /** account_id for the account's own rows, <parent>_id for nested ones, null for accounts/references. */
  parentColumn: string | null;
  /** Has an id and account_id (all but account_references). */
  owned: boolean;
  /** Has a position (the rows of an array). */
  ordered: boolean;
  one: boolean;
  required: boolean;
  /** Where its rows come from in the parent's object (split: the split column's value, or null). */
  sources: readonly { split: string | null; path: string }[];
  splitColumn: string | null;
  columns: readonly LayoutColumn[];
  /** Every column the store writes, with its cast type: the UNNEST insert's columns. */
  pg: Columns;
  /** NOT NULL per written column, as the migrations make them (the migration test's expectation). */
  notNull: Readonly<Record<string, boolean>>;
  children: AccountTable[];
}

function layoutOf(table: AccountTable): TableLayout {
  const spec = TABLE_SPECS[table];
  const isAccount = table === 'accounts';
  const owned = !spec.byAccountNumber;
  const ordered = owned && !isAccount && !spec.one;
  const parentTable = isAccount || !owned ? null : ((spec.parent as AccountTable | undefined) ?? 'accounts');
  const parentColumn = parentTable === null ? null : parentTable === 'accounts' ? 'account_id' : PARENT_COLUMN[parentTable]!;

  const pg: Record<string, PgType> = {};
  const notNull: Record<string, boolean> = {};
  const key = (name: string, type: PgType) => {
    pg[name] = type;
    notNull[name] = true;
  };
  if (owned) key('id', 'bigint');
  if (owned && !isAccount) key('account_id', 'bigint');
  if (ordered) key('position', 'integer');
  if (parentColumn && parentColumn !== 'account_id') key(parentColumn, 'bigint');
  const splitColumn = spec.split?.column ?? null;
  if (splitColumn) key(splitColumn, 'text');

  const columns: LayoutColumn[] = Object.entries(spec.columns).map(([name, def]) => {
    const c = typeof def === 'string' ? { type: def } : def;
    const field = c.field ?? (c.write ? null : name);
    const path = field === null ? null : field.split('.');
    const key = path?.length === 1 ? path[0]! : null;
    const textName = c.type === 'decimal' ? `${name}_text` : null;
    return { name, type: c.type, field: path, key, write: c.write, notNull: c.notNull === true, textName };
  });
  for (const c of columns) {
    pg[c.name] = c.type === 'decimal' ? 'numeric' : c.type;
    notNull[c.name] = c.notNull;
    if (c.textName) {
      pg[c.textName] = 'text';
      notNull[c.textName] = false;
    }
  }

  return {
    table,
    parentTable,
    parentColumn,
    owned,
    ordered,
    one: spec.one === true,
    required: spec.required === true,
    sources: spec.split
      ? Object.entries(spec.split.paths).map(([split, path]) => ({ split, path }))
      : [{ split: null, path: spec.path ?? '' }],
    splitColumn,
    columns,
    pg,
    notNull,
    children: [],
  };
}

export const ACCOUNT_TABLE_NAMES = Object.keys(TABLE_SPECS);

export const LAYOUT = Object.fromEntries(ACCOUNT_TABLE_NAMES.map((t) => [t, layoutOf(t)])) as Record<
  AccountTable,
  TableLayout
>;
for (const t of ACCOUNT_TABLE_NAMES) {
  const parent = LAYOUT[t].parentTable ?? (t === 'accounts' ? null : 'accounts');
  if (parent) LAYOUT[parent].children.push(t);
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

function dateText(v: unknown): string {
  // A DATE read without db/knex.ts's parser is a local-midnight Date: its local fields are the day.
  if (v instanceof Date) return `${pad(v.getFullYear(), 4)}-${pad(v.getMonth() + 1)}-${pad(v.getDate())}`;
  return String(v);
}

export function datetimeText(v: unknown): string {
  const d = v instanceof Date ? v : new Date(String(v));
  // The spec's form is YYYY-MM-DDTHH:MM:SSZ; fractions appear only when the payload had them.
  return d.toISOString().replace('.000Z', 'Z');
}

/**
 * One database row in payload terms: ids as numbers, dates as 'YYYY-MM-DD', datetimes as ISO UTC,
 * each decimal as the text that was sent (the `_text` column when set, else numeric's own text),
 * and NULL columns left out (an optional field with no data is omitted, spec rule 1).
 */
export function fromDb(table: AccountTable, row: Row): Row {
  const out: Row = {};
  for (const { name, type, text } of READ_COLUMNS[table]) {
    if (type === 'numeric') {
      const v = row[text!] ?? row[name];
      if (v !== null && v !== undefined) out[name] = String(v);
      continue;
    }
    const v = row[name];
    if (v === null || v === undefined) continue;
    if (type === 'bigint') out[name] = Number(v);
    else if (type === 'date') out[name] = dateText(v);
    else if (type === 'timestamptz') out[name] = datetimeText(v);
    else out[name] = v;
  }
  return out;
}

/**
 * What fromDb reads of each table, worked out once (it runs for every row read back): every
 * column of `pg` but a decimal's `_text` column, which is read with its decimal.
 */
const READ_COLUMNS = Object.fromEntries(
  ACCOUNT_TABLE_NAMES.map((t) => {
    const { pg } = LAYOUT[t];
    const columns = Object.entries(pg)
      .filter(([name]) => !(name.endsWith('_text') && pg[name.slice(0, -5)] === 'numeric'))
      .map(([name, type]) => ({ name, type, text: type === 'numeric' ? `${name}_text` : null }));
    return [t, columns];
  }),
) as unknown as Record<AccountTable, readonly { name: string; type: PgType; text: string | null }[]>;
