// The import process's reads: by account, by id, the stored payload, the runs the sweeper and a
// restore look for, the status counts.
import type { Knex } from 'knex';
import { isSetAsideSql } from '../db/stores/queueItems';
import { ACTIVE, IMPORT_STATUSES, type ImportProcess, type Row, select, toModel } from './rowStore';

export async function findProcess(
  db: Knex,
  importSupplier: string,
  externalAccountNumber: string,
  opts: { forUpdate?: boolean } = {},
): Promise<ImportProcess | null> {
  const q = select(db).where({ import_supplier: importSupplier, external_account_number: externalAccountNumber });
  if (opts.forUpdate) q.forUpdate();
  const row = (await q.first()) as Row | undefined;
  return row ? toModel(row) : null;
}

/**
 * The import processes of many accounts of one supplier in one SELECT (the bulk status operation):
 * `external_account_number = ANY(...)` uses the unique index on (import_supplier,
 * external_account_number), one probe per number. Numbers without a process have no row.
 */
export async function findProcesses(db: Knex, importSupplier: string, externalAccountNumbers: readonly string[]): Promise<ImportProcess[]> {
  if (externalAccountNumbers.length === 0) return [];
  const rows = await select(db)
    .where({ import_supplier: importSupplier })
    .whereRaw('external_account_number = ANY(?::text[])', [[...externalAccountNumbers]]);
  return (rows as Row[]).map(toModel);
}

export async function getProcessById(db: Knex, id: string, opts: { forUpdate?: boolean } = {}): Promise<ImportProcess | null> {
  const q = select(db).where({ id });
  if (opts.forUpdate) q.forUpdate();
  const row = (await q.first()) as Row | undefined;
  return row ? toModel(row) : null;
}

/**
 * The stored payload as the JSON text PostgreSQL holds (null once retention dropped it), for a
 * caller that parses it within the bounds a body is held to (lib/jsonBounds.ts parseBounded):
 * the driver would parse it unbounded.
 */
export async function getPayloadText(db: Knex, id: string): Promise<string | null> {
  const row = (await db('import_processes').select(db.raw('payload::text AS payload')).where({ id }).first()) as { payload: string | null } | undefined;
  return row?.payload ?? null;
}

export async function getPayload(db: Knex, id: string): Promise<unknown> {
  const row = await db('import_processes').select('payload').where({ id }).first();
  return row?.payload;
}

/** PENDING runs whose workflow was never started (the API died between commit and start). */
export async function findUnstartedRuns(db: Knex, olderThanSeconds: number, limit = 100): Promise<ImportProcess[]> {
  const rows = await select(db)
    .where({ status: 'PENDING' })
    .whereNull('workflow_run_id')
    // A run whose start failed for itself until its attempts ran out waits for an operator (imports/sweeper.ts).
    .whereRaw(`NOT ${isSetAsideSql('sweeper', "import_processes.id::text || ':' || import_processes.run")}`)
    .where('modified_at', '<', db.raw(`now() - make_interval(secs => ?)`, [olderThanSeconds]))
    .orderBy('id')
    .limit(limit);
  return (rows as Row[]).map(toModel);
}

/**
 * Every import a database holds open, oldest first: PENDING or IN_PROGRESS, or PROCESSED with its
 * post-import follow-ups not finished (`data-import imports resume-restored` after a restore).
 */
export async function findOpenImports(db: Knex, importSupplier?: string): Promise<ImportProcess[]> {
  const q = select(db)
    .where((w) => w.whereIn('status', [...ACTIVE]).orWhere((w2) => w2.where({ status: 'PROCESSED' }).whereNotIn('current_step', ['done', 'post_import_failed'])))
    .orderBy('id');
  if (importSupplier) q.where({ import_supplier: importSupplier });
  return ((await q) as Row[]).map(toModel);
}

/**
 * Import processes by status, for the API's `data_import_imports` gauge. Read from the roll-up the
 * triggers of migration 0008 keep current in the same transaction as each status change, not by
 * counting the table: a scrape stays a few rows whatever the size of the book.
 */
export async function countByStatus(db: Knex): Promise<Record<string, number>> {
  const rows = await db('ops_counts').where({ kind: 'import' }).select('status').sum({ n: 'n' }).groupBy('status');
  const out: Record<string, number> = Object.fromEntries(IMPORT_STATUSES.map((s) => [s, 0]));
  for (const r of rows as { status: string; n: string }[]) out[r.status] = Number(r.n);
  return out;
}
