import type { Knex } from 'knex';

/**
 * The queries behind the operations page. Every one reads either a trigger-kept roll-up
 * (db/migrations/0008_ops_rollups.ts) or an index, so each answers in milliseconds for a supplier
 * with a million import processes (bench/ops.ts measures them). `supplier` null means all.
 */

export type RollupKind = 'import' | 'registration' | 'email';

export interface CountRow {
  kind: RollupKind;
  status: string;
  errorCode: string;
  n: number;
}

/** Counts by kind, status and error code, summed over the counter slots (and suppliers). */
export async function rollupCounts(db: Knex, supplier: string | null): Promise<CountRow[]> {
  const q = db('ops_counts')
    .select('kind', 'status', 'error_code')
    .sum({ n: 'n' })
    .groupBy('kind', 'status', 'error_code')
    .havingRaw('sum(n) <> 0');
  if (supplier) q.where({ import_supplier: supplier });
  const rows = (await q) as { kind: RollupKind; status: string; error_code: string; n: string }[];
  return rows.map((r) => ({ kind: r.kind, status: r.status, errorCode: r.error_code, n: Number(r.n) }));
}

export interface MinuteRow {
  minute: Date;
  processed: number;
}

/** Imports that became PROCESSED per minute since `since`, minutes without any left out. */
export async function processedPerMinute(db: Knex, supplier: string | null, since: Date): Promise<MinuteRow[]> {
  const q = db('ops_processed_minutes')
    .select('minute')
    .sum({ processed: 'processed' })
    .where('minute', '>=', since)
    .groupBy('minute')
    .orderBy('minute');
  if (supplier) q.where({ import_supplier: supplier });
  const rows = (await q) as { minute: Date; processed: string }[];
  return rows.map((r) => ({ minute: r.minute, processed: Number(r.processed) }));
}

export interface LatencyBinRow {
  bin: Date;
  /** Count per histogram bucket (index 0 = the bucket from bounds[0]). */
  histogram: number[];
}

/**
 * Latency histograms summed into bins of `binMinutes` since `since`. The sums are per array
 * element (`sum(latency_hist[i])`, one column each), not over unnested rows: an aggregate per
 * bucket over a few thousand rows instead of a group-by over a hundred thousand.
 */
export async function latencyHistograms(db: Knex, supplier: string | null, since: Date, binMinutes: number): Promise<LatencyBinRow[]> {
  const size = (await latencyBoundsMs(db)).length;
  const sums = Array.from({ length: size }, (_, i) => `sum(latency_hist[${i + 1}])`).join(', ');
  const rows = (
    await db.raw(
      `SELECT date_bin(make_interval(mins => ?), minute, timestamptz '2000-01-01') AS bin, ARRAY[${sums}]::bigint[] AS h
         FROM ops_processed_minutes
        WHERE minute >= ? ${supplier ? 'AND import_supplier = ?' : ''}
        GROUP BY 1
        ORDER BY 1`,
      supplier ? [binMinutes, since, supplier] : [binMinutes, since],
    )
  ).rows as { bin: Date; h: string[] }[];
  return rows.map((r) => ({ bin: r.bin, histogram: r.h.map(Number) }));
}

let bounds: Promise<number[]> | undefined;
/** The histogram's bucket lower bounds, defined once, in the database (ops_latency_bounds_ms()). */
export function latencyBoundsMs(db: Knex): Promise<number[]> {
  bounds ??= db.raw('SELECT ops_latency_bounds_ms() AS b').then((r: { rows: { b: number[] }[] }) => r.rows[0]!.b.map(Number));
  return bounds.catch((err) => {
    bounds = undefined;
    throw err;
  });
}

export const ERROR_STATUSES = ['ERRORED', 'DRY_RUN_ERRORED'] as const;

export interface AffectedImport {
  importSupplier: string;
  externalAccountNumber: string;
  status: string;
  workflowId: string;
  modifiedAt: Date;
}

/**
 * Errored imports with one error code, in (supplier, external account number) order, after a
 * cursor: served by the partial index import_processes_error_code_idx.
 */
export async function importsWithError(
  db: Knex,
  filter: { supplier: string | null; code: string; after?: [string, string]; limit: number },
): Promise<AffectedImport[]> {
  const q = db('import_processes')
    .select('import_supplier', 'external_account_number', 'status', 'workflow_id', 'modified_at')
    .whereIn('status', ERROR_STATUSES)
    .whereRaw(`latest_error->>'code' = ?`, [filter.code])
    .orderBy([{ column: 'import_supplier' }, { column: 'external_account_number' }])
    .limit(filter.limit);
  if (filter.supplier) q.where({ import_supplier: filter.supplier });
  if (filter.after) q.whereRaw('(import_supplier, external_account_number) > (?, ?)', filter.after);
  const rows = (await q) as { import_supplier: string; external_account_number: string; status: string; workflow_id: string; modified_at: Date }[];
  return rows.map((r) => ({
    importSupplier: r.import_supplier,
    externalAccountNumber: r.external_account_number,
    status: r.status,
    workflowId: r.workflow_id,
    modifiedAt: r.modified_at,
  }));
}

/** Every import supplier, for the selector (a small table). */
export async function supplierCodes(db: Knex): Promise<string[]> {
  return (await db('import_suppliers').select('code').orderBy('code')).map((r: { code: string }) => r.code);
}

export async function databaseNow(db: Knex): Promise<Date> {
  return (await db.raw('SELECT now() AS now')).rows[0].now as Date;
}

/** Account numbers of a tranche asked about in one statement. */
const TRANCHE_CHUNK = 5_000;

/**
 * The import statuses of a tranche's accounts (issue 40): the book's account numbers, per supplier,
 * counted by status in statements of up to 5,000 numbers; the numbers with no import process are
 * `not_started`. The tranche is known from its book alone: nothing about it is stored.
 */
export async function trancheCounts(db: Knex, numbers: ReadonlyMap<string, readonly string[]>): Promise<{ byStatus: Record<string, number>; notStarted: number; accounts: number }> {
  const byStatus: Record<string, number> = {};
  let accounts = 0;
  let found = 0;
  for (const [supplier, list] of numbers) {
    const unique = [...new Set(list)].filter((n) => !n.includes('\u0000'));
    accounts += new Set(list).size;
    if (supplier.includes('\u0000')) continue;
    for (let i = 0; i < unique.length; i += TRANCHE_CHUNK) {
      const rows = (await db('import_processes')
        .select('status')
        .count<{ status: string; n: string }[]>({ n: '*' })
        .where({ import_supplier: supplier })
        .whereRaw('external_account_number = ANY(?::text[])', [unique.slice(i, i + TRANCHE_CHUNK)])
        .groupBy('status')) as unknown as { status: string; n: string }[];
      for (const r of rows) {
        byStatus[r.status] = (byStatus[r.status] ?? 0) + Number(r.n);
        found += Number(r.n);
      }
    }
  }
  return { byStatus, notStarted: accounts - found, accounts };
}
