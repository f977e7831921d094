import type { Knex } from 'knex';
import { COLUMNS, type ImportProcess, type ImportProcessRow, type ImportStatus, toModel } from '../../db/stores/importProcesses';

/**
 * The platform's three listings of a supplier's import processes. "imported" = an account exists
 * (PROCESSED); "pending" = staged without an account (every other status, dry runs, errors and
 * cancellations included: their data is staged and can be imported again).
 */
export const LISTINGS = ['all', 'pending', 'imported'] as const;
export type Listing = (typeof LISTINGS)[number];

export interface ListingFilter {
  importSupplier?: string;
  listing?: Listing;
  status?: ImportStatus;
  /** Keyset: only processes with a greater id. */
  afterId?: string;
  limit?: number;
}

export interface ListedProcess extends ImportProcess {
  /** When the account was created (UTC, `YYYY-MM-DDTHH:MM:SSZ`), null without an account. */
  accountCreatedAt: string | null;
}

type ListedRow = ImportProcessRow & { account_created_at_text: string | null };

const TEXT_TS = (expr: string, alias: string, format: string) => `to_char(${expr} AT TIME ZONE 'UTC', '${format}') AS ${alias}`;
const MICROS = 'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"';

/**
 * The one query of `data-import imports list` and the HTTP listings: import processes in id
 * order, filtered by supplier, listing and status, after a keyset cursor. Each listing has an
 * index on (import_supplier, id) (db/migrations/0009), so a page or a full streamed listing is an
 * index range scan. The account is joined for its creation time (unique on supplier + external).
 */
export function listingQuery(db: Knex, f: ListingFilter): Knex.QueryBuilder {
  const q = db('import_processes as p')
    .leftJoin('accounts as a', (j) => {
      j.on('a.import_supplier', 'p.import_supplier').andOn('a.external_account_number', 'p.external_account_number');
    })
    .select([
      ...COLUMNS.map((c) => `p.${c}`),
      db.raw(TEXT_TS('p.created_at', 'created_at_text', MICROS)),
      db.raw(TEXT_TS('p.modified_at', 'modified_at_text', MICROS)),
      db.raw(TEXT_TS('a.created_at', 'account_created_at_text', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')),
    ])
    .orderBy('p.id');
  if (f.importSupplier !== undefined) q.where('p.import_supplier', f.importSupplier);
  if (f.listing === 'imported') q.where('p.status', 'PROCESSED');
  if (f.listing === 'pending') q.whereNot('p.status', 'PROCESSED');
  if (f.status !== undefined) q.where('p.status', f.status);
  if (f.afterId !== undefined) q.where('p.id', '>', f.afterId);
  if (f.limit !== undefined) q.limit(f.limit);
  return q;
}

export const listedFromRow = (r: ListedRow): ListedProcess => ({
  ...toModel(r),
  accountCreatedAt: r.status === 'PROCESSED' ? r.account_created_at_text : null,
});

/** A page of the listing (bounded by `limit`): the CLI and the paged HTTP listing. */
export async function listImportProcesses(db: Knex, f: ListingFilter): Promise<ListedProcess[]> {
  return ((await listingQuery(db, f)) as ListedRow[]).map(listedFromRow);
}

/** The full listing as an object stream from a server-side cursor (pg-query-stream): bounded memory. */
export function streamImportProcesses(db: Knex, f: ListingFilter, batchSize = 500): NodeJS.ReadableStream & { destroy(err?: Error): void } {
  return listingQuery(db, f).stream({ batchSize, highWaterMark: batchSize }) as never;
}

/** The platform's ImportProcess item. */
export function platformItem(p: ListedProcess) {
  return {
    external_account_number: p.externalAccountNumber,
    kraken_account_number: p.status === 'PROCESSED' ? p.krakenIdentifier : null,
    account_created_at: p.accountCreatedAt,
  };
}
