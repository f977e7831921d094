import { ACCOUNT_TABLE_NAMES, LAYOUT } from '../../db/stores/accountLayout';
import type { PgType } from '../../db/stores/unnestInsert';
import { createTestDatabase, TestDatabase } from '../support/db';

/**
 * The migrations (db/migrations/0002, 0003, 0009) stay explicit; db/stores/accountTables.ts
 * describes the same tables for the insert and the read-back. This holds the two together on a
 * migrated database: same columns, types, NOT NULLs and parent foreign keys.
 */

/** information_schema.columns.data_type for each cast type (text columns may be varchar(n)). */
const DATA_TYPES: Record<PgType, string[]> = {
  bigint: ['bigint'],
  integer: ['integer'],
  text: ['text', 'character varying'],
  date: ['date'],
  numeric: ['numeric'],
  boolean: ['boolean'],
  timestamptz: ['timestamp with time zone'],
  jsonb: ['jsonb'],
};

/** Columns of the described tables the store never writes: each must have a default. */
const LEFT_TO_DEFAULTS: Record<string, string[]> = {
  accounts: ['created_at'],
  account_references: ['id', 'created_at'],
};
/** Columns the insert leaves NULL and another store writes later: the stored digest (db/stores/accountDigests.ts). */
const WRITTEN_AFTER: Record<string, string[]> = {
  accounts: ['stored_digest'],
};

interface DbColumn {
  table_name: string;
  column_name: string;
  data_type: string;
  is_nullable: 'YES' | 'NO';
  column_default: string | null;
}

describe('account tables: the descriptor and the migrations agree', () => {
  let t: TestDatabase;
  let columns: Map<string, DbColumn[]>;

  beforeAll(async () => {
    t = await createTestDatabase();
    const r = await t.db.raw(
      `SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name = ANY(?) ORDER BY table_name, ordinal_position`,
      [ACCOUNT_TABLE_NAMES],
    );
    columns = new Map();
    for (const c of r.rows as DbColumn[]) columns.set(c.table_name, [...(columns.get(c.table_name) ?? []), c]);
  });
  afterAll(async () => {
    await t.drop();
  });

  it.each(ACCOUNT_TABLE_NAMES)('%s has exactly the described columns, with their types and NOT NULLs', (table) => {
    const layout = LAYOUT[table];
    const inDb = columns.get(table) ?? [];
    expect(inDb.map((c) => c.column_name).sort()).toEqual(
      [...Object.keys(layout.pg), ...(LEFT_TO_DEFAULTS[table] ?? []), ...(WRITTEN_AFTER[table] ?? [])].sort(),
    );
    for (const c of inDb) {
      const type = layout.pg[c.column_name];
      if (WRITTEN_AFTER[table]?.includes(c.column_name)) {
        expect({ column: c.column_name, nullable: c.is_nullable }).toEqual({ column: c.column_name, nullable: 'YES' });
        continue;
      }
      if (type === undefined) {
        expect({ column: c.column_name, hasDefault: c.column_default !== null }).toEqual({
          column: c.column_name,
          hasDefault: true,
        });
        continue;
      }
      expect({ column: c.column_name, type: DATA_TYPES[type].includes(c.data_type) ? type : c.data_type }).toEqual({
        column: c.column_name,
        type,
      });
      expect({ column: c.column_name, notNull: c.is_nullable === 'NO' }).toEqual({
        column: c.column_name,
        notNull: layout.notNull[c.column_name],
      });
    }
  });

  it('each parent link of the descriptor is a foreign key of the migrations', async () => {
    const r = await t.db.raw(
      `SELECT conrelid::regclass::text AS "table", a.attname AS "column", confrelid::regclass::text AS parent
         FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
        WHERE c.contype = 'f' AND conrelid::regclass::text = ANY(?)`,
      [ACCOUNT_TABLE_NAMES],
    );
    const keys = (r.rows as { table: string; column: string; parent: string }[]).map((k) => `${k.table}.${k.column} → ${k.parent}`);
    for (const table of ACCOUNT_TABLE_NAMES) {
      const { parentTable, parentColumn } = LAYOUT[table];
      if (parentTable) expect(keys).toContain(`${table}.${parentColumn} → ${parentTable}`);
    }
  });
});
