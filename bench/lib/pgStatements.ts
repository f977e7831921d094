/**
 * PostgreSQL's own account of a benchmark run, from pg_stat_statements: every statement the
 * service ran in the bench database, with calls and execution time per imported account. Needs
 * `shared_preload_libraries = 'pg_stat_statements'` on the server; without it the figures are
 * left out and the benchmark says why (bench/NOTES.md "Profiling").
 */
import type { Knex } from 'knex';

export interface StatementFigure {
  query: string;
  callsPerAccount: number;
  msPerAccount: number;
  rowsPerAccount: number;
}

export interface StatementReport {
  available: boolean;
  reason?: string;
  callsPerAccount?: number;
  msPerAccount?: number;
  top?: StatementFigure[];
}

/** Creates the extension in the bench database and forgets what was counted before. */
export async function resetStatements(db: Knex): Promise<StatementReport> {
  try {
    const preload = (await db.raw(`SELECT current_setting('shared_preload_libraries') AS v`)).rows[0].v as string;
    if (!preload.split(',').map((s) => s.trim()).includes('pg_stat_statements')) {
      return { available: false, reason: "pg_stat_statements is not in shared_preload_libraries (ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements', then restart PostgreSQL)" };
    }
    await db.raw('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await db.raw('SELECT pg_stat_statements_reset()');
    return { available: true };
  } catch (err) {
    return { available: false, reason: `pg_stat_statements: ${(err as Error).message}` };
  }
}

/** The statements of this database since the reset, heaviest first, per imported account. */
export async function readStatements(db: Knex, accounts: number, limit = 15): Promise<StatementReport> {
  const rows = (
    await db.raw(
      `SELECT query, calls::bigint AS calls, total_exec_time AS ms, rows::bigint AS rows
         FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
        WHERE d.datname = current_database() AND query NOT ILIKE '%pg_stat_statements%'
        ORDER BY total_exec_time DESC`,
    )
  ).rows as { query: string; calls: string; ms: number; rows: string }[];
  const per = (n: number) => +(n / accounts).toFixed(2);
  return {
    available: true,
    callsPerAccount: per(rows.reduce((s, r) => s + Number(r.calls), 0)),
    msPerAccount: per(rows.reduce((s, r) => s + r.ms, 0)),
    top: rows.slice(0, limit).map((r) => ({
      query: r.query.replace(/\s+/g, ' ').slice(0, 160),
      callsPerAccount: per(Number(r.calls)),
      msPerAccount: per(r.ms),
      rowsPerAccount: per(Number(r.rows)),
    })),
  };
}
