import type { Knex } from 'knex';
import { IMPORT_STATUSES } from '../imports';

/**
 * The queries behind the operations page. Every one reads either a trigger-kept roll-up
 * (db/migrations/0008_ops_rollups.ts) or an index, so each answers in milliseconds for a supplier
 * with a million import processes (bench/ops.ts measures them). `supplier` null means all. The
 * page's reads of the import processes and of the suppliers are their owners' (imports/,
 * suppliers/).
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

/**
 * Import processes by status, for the API's `data_import_imports` gauge. Read from the roll-up the
 * triggers of migration 0008 keep current in the same transaction as each status change, not by
 * counting the table: a scrape stays a few rows whatever the size of the book.
 */
export async function countImportsByStatus(db: Knex): Promise<Record<string, number>> {
  const rows = await db('ops_counts').where({ kind: 'import' }).select('status').sum({ n: 'n' }).groupBy('status');
  const out: Record<string, number> = Object.fromEntries(IMPORT_STATUSES.map((s) => [s, 0]));
  for (const r of rows as { status: string; n: string }[]) out[r.status] = Number(r.n);
  return out;
}

export async function databaseNow(db: Knex): Promise<Date> {
  return (await db.raw('SELECT now() AS now')).rows[0].now as Date;
}
