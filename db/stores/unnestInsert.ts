import type { Knex } from 'knex';

export type PgType = 'bigint' | 'integer' | 'text' | 'date' | 'numeric' | 'boolean' | 'timestamptz' | 'jsonb';

/** Column name → PostgreSQL type, in insert order. */
export type Columns = Readonly<Record<string, PgType>>;

export interface TableRows {
  table: string;
  columns: Columns;
  rows: Record<string, unknown>[];
}

function columnValues(rows: Record<string, unknown>[], column: string, type: PgType): unknown[] {
  return rows.map((row) => {
    const v = row[column];
    if (v === undefined || v === null) return null;
    // Sent as JSON text: a JSON array inside a JS array would otherwise become a nested SQL array.
    return type === 'jsonb' ? JSON.stringify(v) : v;
  });
}

/** `INSERT INTO table (...) SELECT * FROM unnest(?::type[], ...)`: one array parameter per column. */
export function unnestInsertSql({ table, columns, rows }: TableRows): { sql: string; bindings: unknown[] } {
  const names = Object.keys(columns);
  const bindings = names.map((name) => columnValues(rows, name, columns[name]!));
  const casts = names.map((name) => `?::${columns[name]}[]`);
  return {
    sql:
      `INSERT INTO "${table}" (${names.map((n) => `"${n}"`).join(', ')}) ` +
      `SELECT * FROM unnest(${casts.join(', ')})`,
    bindings,
  };
}

/**
 * Writes many tables in ONE statement: each table is a data-modifying CTE fed by UNNEST of one array
 * parameter per column. The statement size is independent of the row count (no 65,535 bind-parameter
 * limit, no chunking), it is one round trip, and it is atomic on its own. Foreign keys between the
 * CTEs hold because PostgreSQL checks them at the end of the statement; ids are therefore allocated
 * beforehand (see allocationSql) instead of coming back through RETURNING.
 */
export async function insertTablesWithUnnest(db: Knex, tables: TableRows[]): Promise<void> {
  const parts: string[] = [];
  const bindings: unknown[] = [];
  for (const t of tables) {
    if (t.rows.length === 0) continue;
    const insert = unnestInsertSql(t);
    parts.push(`w${parts.length} AS (${insert.sql})`);
    bindings.push(...insert.bindings);
  }
  if (parts.length === 0) return;
  await db.raw(`WITH ${parts.join(',\n')}\nSELECT 1`, bindings as Knex.RawBinding[]);
}

/**
 * Select-list items that reserve `counts[table]` ids from each table's bigserial sequence (named
 * `<table>_id_seq` by PostgreSQL), so parent and child rows can be written in one statement.
 */
export function allocationSql(counts: Record<string, number>): { sql: string[]; bindings: number[] } {
  const sql: string[] = [];
  const bindings: number[] = [];
  for (const [table, n] of Object.entries(counts)) {
    if (n <= 0) continue;
    sql.push(`(SELECT array_agg(nextval('"${table}_id_seq"')) FROM generate_series(1, ?::int)) AS "${table}"`);
    bindings.push(n);
  }
  return { sql, bindings };
}

/** The ids that allocationSql's items returned, per table. */
export function allocatedIds(row: Record<string, unknown>, counts: Record<string, number>): Record<string, number[]> {
  const ids: Record<string, number[]> = {};
  for (const [table, n] of Object.entries(counts)) {
    // int8 arrives as text (account ids stay far below 2^53). Sorted so that ids follow the order
    // of the rows they are handed to: reading by id gives the payload order back.
    ids[table] = n > 0 ? (row[table] as string[]).map(Number).sort((x, y) => x - y) : [];
  }
  return ids;
}
