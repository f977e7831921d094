/**
 * What a benchmark's import leaves in PostgreSQL: the growth of every relation of the side's
 * database (tables with their indexes and TOAST, `pg_total_relation_size`) over the import, and the
 * bytes of the account tables' rows themselves (`pg_column_size` of each row: no page slack, no
 * index). Account tables are `accounts` and every table with an `account_id`: read from the
 * catalogue, so a side's own set of tables is measured, whatever its migrations made.
 */
import type { Knex } from 'knex';

export type RelationSizes = Record<string, number>;

export interface StorageReport {
  /** Accounts the figures are divided by (PROCESSED ones). */
  accounts: number;
  /** Growth of every relation ÷ accounts. */
  bytesPerAccount: number;
  /** Growth of the account tables (with their indexes) ÷ accounts. */
  accountTableBytesPerAccount: number;
  /** Σ pg_column_size of the account tables' rows ÷ accounts. */
  rowBytesPerAccount: number;
  /** The relations that grew most, bytes per account. */
  byTable: Record<string, number>;
}

export async function relationSizes(db: Knex): Promise<RelationSizes> {
  const rows = (
    await db.raw(
      `SELECT c.relname AS name, pg_total_relation_size(c.oid)::bigint AS bytes
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')`,
    )
  ).rows as { name: string; bytes: string }[];
  return Object.fromEntries(rows.map((r) => [r.name, Number(r.bytes)]));
}

async function accountTables(db: Knex): Promise<string[]> {
  const rows = (await db.raw(`SELECT DISTINCT table_name AS name FROM information_schema.columns WHERE table_schema = 'public' AND column_name = 'account_id'`)).rows as { name: string }[];
  return ['accounts', ...rows.map((r) => r.name).filter((n) => n !== 'accounts')].sort();
}

/** The storage report of an import: `before` taken just before it, the database read now. */
export async function storageReport(db: Knex, before: RelationSizes, accounts: number): Promise<StorageReport | null> {
  if (accounts === 0) return null;
  const after = await relationSizes(db);
  const tables = await accountTables(db);
  const grown = Object.entries(after).map(([name, bytes]) => [name, bytes - (before[name] ?? 0)] as const);
  let rowBytes = 0;
  for (const table of tables) {
    if (after[table] === undefined) continue;
    rowBytes += Number((await db.raw(`SELECT coalesce(sum(pg_column_size(t.*)), 0)::bigint AS bytes FROM "${table}" t`)).rows[0].bytes);
  }
  const per = (n: number) => Math.round(n / accounts);
  return {
    accounts,
    bytesPerAccount: per(grown.reduce((s, [, b]) => s + b, 0)),
    accountTableBytesPerAccount: per(grown.filter(([name]) => tables.includes(name)).reduce((s, [, b]) => s + b, 0)),
    rowBytesPerAccount: per(rowBytes),
    byTable: Object.fromEntries(
      grown
        .filter(([, b]) => b > 0)
        .sort((a, b) => b[1] - a[1])
        .slice(0, 10)
        .map(([name, b]) => [name, per(b)]),
    ),
  };
}
