// The import process's reads: by account, by id, the stored payload, the runs the sweeper and a
// restore look for, the errored imports of one code and a tranche's statuses (the operations page).
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
