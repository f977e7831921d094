// long-file: the import's one store: every statement on its process and run rows.
import type { Knex } from 'knex';
import { isSetAsideSql } from '../db/stores/queueItems';
import { isoWithOffset } from '../lib/ids';
import type { ReferencePair } from '../account/referenceDataStore';

export const IMPORT_STATUSES = [
  // Stored and validated by the platform's v1 create-or-update, not yet processed: no run, no
  // workflow (imports/staging.ts). v1 process, or a v2 create, starts its first run.
  'STAGED',
  'PENDING',
  'IN_PROGRESS',
  'DRY_RUN_SUCCEEDED',
  'DRY_RUN_ERRORED',
  'PROCESSED',
  'ERRORED',
  'CANCELLED',
] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];

/** Statuses in which a run is under way: a create answers a conflict. */
export const ACTIVE: readonly ImportStatus[] = ['PENDING', 'IN_PROGRESS'];

/** Whether a run of this import is under way (PENDING or IN_PROGRESS): a create, a stage or a process answers a conflict. */
export const isActive = (status: ImportStatus): boolean => (ACTIVE as readonly string[]).includes(status);

export type LatestEventName =
  | 'EVENT_ACCOUNT_IMPORT_PROCESS_CREATED'
  | 'EVENT_ACCOUNT_IMPORT_PROCESS_PROCESSED'
  | 'EVENT_ACCOUNT_IMPORT_PROCESS_ERRORED';

export interface ImportError {
  code: string;
  detail: string;
  domain: 'import_process';
}

export interface LatestEvent {
  event: LatestEventName;
  occurred_at: string;
  data: ImportError | null;
}

/** The latest_event that goes with each status (docs/spec/DESIGN.md table). */
export function latestEventFor(status: ImportStatus, at: Date, error: ImportError | null = null): LatestEvent {
  const event: LatestEventName =
    status === 'PROCESSED'
      ? 'EVENT_ACCOUNT_IMPORT_PROCESS_PROCESSED'
      : status === 'ERRORED' || status === 'DRY_RUN_ERRORED'
        ? 'EVENT_ACCOUNT_IMPORT_PROCESS_ERRORED'
        : 'EVENT_ACCOUNT_IMPORT_PROCESS_CREATED';
  return { event, occurred_at: isoWithOffset(at), data: event === 'EVENT_ACCOUNT_IMPORT_PROCESS_ERRORED' ? error : null };
}

export interface ImportProcess {
  id: string;
  importSupplier: string;
  externalAccountNumber: string;
  status: ImportStatus;
  krakenIdentifier: string | null;
  isDryRun: boolean;
  scheduleWindowStart: Date;
  scheduleWindowEnd: Date;
  run: number;
  workflowId: string;
  workflowRunId: string | null;
  currentStep: string | null;
  latestEvent: LatestEvent;
  latestError: ImportError | null;
  /** account/fingerprint.ts: what the API's validation of this run's payload depended on. */
  validationFingerprint: string | null;
  /** Size of the stored payload's JSON in bytes; null for runs stored before migration 0013. */
  payloadBytes: number | null;
  createdAt: string;
  modifiedAt: string;
}

interface Row {
  id: string;
  import_supplier: string;
  external_account_number: string;
  status: ImportStatus;
  kraken_identifier: string | null;
  is_dry_run: boolean;
  schedule_window_start: Date;
  schedule_window_end: Date;
  run: number;
  workflow_id: string;
  workflow_run_id: string | null;
  current_step: string | null;
  latest_event: LatestEvent;
  latest_error: ImportError | null;
  validation_fingerprint: string | null;
  payload_bytes: number | null;
  created_at_text: string;
  modified_at_text: string;
}

/** A row of import_processes as `select` reads it (the listing query reads the same columns). */
export type ImportProcessRow = Row;

// Microsecond timestamps with an explicit offset, formatted by PostgreSQL (a JS Date would drop
// the microseconds).
const TS = (col: string) =>
  `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"') AS ${col}_text`;
export const COLUMNS = [
  'id', 'import_supplier', 'external_account_number', 'status', 'kraken_identifier', 'is_dry_run',
  'schedule_window_start', 'schedule_window_end', 'run', 'workflow_id', 'workflow_run_id',
  'current_step', 'latest_event', 'latest_error', 'validation_fingerprint', 'payload_bytes',
];

const selection = (db: Knex) => [...COLUMNS, db.raw(TS('created_at')), db.raw(TS('modified_at'))];

function select(db: Knex) {
  return db('import_processes').select(selection(db));
}

export const toModel = (r: Row): ImportProcess => ({
  id: String(r.id),
  importSupplier: r.import_supplier,
  externalAccountNumber: r.external_account_number,
  status: r.status,
  krakenIdentifier: r.kraken_identifier,
  isDryRun: r.is_dry_run,
  scheduleWindowStart: r.schedule_window_start,
  scheduleWindowEnd: r.schedule_window_end,
  run: r.run,
  workflowId: r.workflow_id,
  workflowRunId: r.workflow_run_id,
  currentStep: r.current_step,
  latestEvent: r.latest_event,
  latestError: r.latest_error,
  validationFingerprint: r.validation_fingerprint ?? null,
  payloadBytes: r.payload_bytes ?? null,
  createdAt: r.created_at_text,
  modifiedAt: r.modified_at_text,
});

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

/** What the account write reads with the run's lock, in one statement. */
export interface LockedForWrite {
  process: ImportProcess;
  /** The stored payload when it is at most `inlineUpTo` bytes; else undefined (read it with getPayload). */
  payload: unknown;
  /** Whether an account of this import (supplier and external number) exists already. */
  accountExists: boolean;
  /** The payload's references that another account holds (distinct pairs, any order). */
  takenReferences: ReferencePair[];
}

/**
 * The row locked, with what the account write needs to know in the same statement (one round trip
 * instead of three): the stored payload when it is at most `inlineUpTo` bytes (a larger payload,
 * or one of unknown size, is `undefined`: the caller reads it with getPayload once it has room for
 * it, lib/payloadBudget.ts), whether the import's account exists already, and which of the
 * payload's references another account of its import supplier holds (account/referenceDataStore.ts
 * findReferenceOwners, asked of the stored payload; references are unique per import supplier).
 */
export async function lockProcessForWrite(trx: Knex, id: string, inlineUpTo = Infinity): Promise<LockedForWrite | null> {
  const locked = await lockProcessWith(trx, id, {
    payload: Number.isFinite(inlineUpTo) ? trx.raw('CASE WHEN payload_bytes <= ? THEN payload END', [inlineUpTo]) : 'payload',
    account_exists: `EXISTS (SELECT 1 FROM accounts a
                              WHERE a.import_supplier = import_processes.import_supplier
                                AND a.external_account_number = import_processes.external_account_number)`,
    taken_references: `(SELECT coalesce(jsonb_agg(DISTINCT jsonb_build_object('namespace', r.namespace, 'value', r.value)), '[]'::jsonb)
                          FROM account_references r
                          JOIN jsonb_to_recordset(CASE WHEN jsonb_typeof(import_processes.payload->'references') = 'array'
                                                       THEN import_processes.payload->'references' ELSE '[]'::jsonb END)
                               AS q(namespace text, value text)
                            ON q.namespace = r.namespace AND q.value = r.value
                         WHERE r.import_supplier = import_processes.import_supplier
                           AND r.external_account_number <> import_processes.external_account_number)`,
  });
  if (!locked) return null;
  const { payload, account_exists, taken_references } = locked.extra;
  return { process: locked.process, payload: payload ?? undefined, accountExists: account_exists as boolean, takenReferences: taken_references as ReferencePair[] };
}

/**
 * The row locked, with more columns read by the same statement: `extra` maps a name to an SQL
 * expression over the `import_processes` row (a correlated subquery, say; a Knex.Raw when it has
 * bindings). One round trip for the lock and what the step needs to know with it.
 */
export async function lockProcessWith<K extends string>(trx: Knex, id: string, extra: Record<K, string | Knex.Raw>): Promise<{ process: ImportProcess; extra: Record<K, unknown> } | null> {
  const columns = Object.entries<string | Knex.Raw>(extra).map(([name, expr]) => (typeof expr === 'string' ? trx.raw(`${expr} AS ??`, [name]) : trx.raw('? AS ??', [expr, name])));
  const row = (await select(trx).select(columns).where({ id }).forUpdate().first()) as (Row & Record<K, unknown>) | undefined;
  if (!row) return null;
  return { process: toModel(row), extra: Object.fromEntries(Object.keys(extra).map((k) => [k, row[k as K]])) as Record<K, unknown> };
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

export interface NewRun {
  importSupplier: string;
  externalAccountNumber: string;
  payload: unknown;
  taskParams: Record<string, unknown>;
  isDryRun: boolean;
  scheduleWindowStart: Date;
  scheduleWindowEnd: Date;
  workflowId: string;
  warnings: unknown[];
  /** account/fingerprint.ts; null or absent: the worker validates the payload again. */
  validationFingerprint?: string | null;
  now: Date;
}

/**
 * The columns of a new PENDING run (the first, or one after an earlier run ended), or of staged
 * data (STAGED: stored and validated, no run yet; the run number is left as it is).
 */
function runFields(r: NewRun, status: 'PENDING' | 'STAGED' = 'PENDING'): Record<string, unknown> {
  const payload = JSON.stringify(r.payload);
  return {
    status,
    kraken_identifier: null,
    payload,
    payload_bytes: Buffer.byteLength(payload),
    task_params: JSON.stringify(r.taskParams),
    is_dry_run: r.isDryRun,
    schedule_window_start: r.scheduleWindowStart,
    schedule_window_end: r.scheduleWindowEnd,
    workflow_id: r.workflowId,
    workflow_run_id: null,
    current_step: status === 'STAGED' ? 'staged' : 'waiting_for_window',
    latest_event: JSON.stringify(latestEventFor(status, r.now)),
    latest_error: null,
    warnings: JSON.stringify(r.warnings),
    validation_fingerprint: r.validationFingerprint ?? null,
    modified_at: r.now,
  };
}

/**
 * A new row: the first run (run 1), or staged data (run 0: no run yet, so the first run a process
 * starts is run 1, as a v2 create's, and publishes the same event ids).
 */
const firstRow = (r: NewRun, status: 'PENDING' | 'STAGED' = 'PENDING') => ({
  ...runFields(r, status),
  import_supplier: r.importSupplier,
  external_account_number: r.externalAccountNumber,
  run: status === 'STAGED' ? 0 : 1,
  created_at: r.now,
});

/**
 * Inserts the import process, or starts a new run on an existing one (run + 1). The caller holds
 * the row lock (findProcess forUpdate) and has decided a new run is allowed.
 */
export async function upsertRun(db: Knex, existing: ImportProcess | null, r: NewRun): Promise<ImportProcess> {
  // The written row comes back from the same statement (no second read).
  if (existing) {
    const [updated] = (await db('import_processes')
      .where({ id: existing.id })
      .update({ ...runFields(r), run: existing.run + 1 })
      .returning(selection(db))) as Row[];
    return toModel(updated!);
  }
  return insertRow(db, r);
}

/** The row of an account no import process exists for (a unique violation when one does): its first run, or its staged data. */
export async function insertRow(db: Knex, r: NewRun, status: 'PENDING' | 'STAGED' = 'PENDING'): Promise<ImportProcess> {
  const [row] = (await db('import_processes').insert(firstRow(r, status)).returning(selection(db))) as Row[];
  return toModel(row!);
}

/**
 * The first run of an account no import process exists for (or its first staged data), in one
 * statement of its own (no transaction, no lock: the usual create or stage of a migration). Null
 * when the account has a process already, or another request inserted one first: the caller then
 * decides under the row lock (findProcess forUpdate, upsertRun or restage) as for any later one.
 */
export async function insertFirstRun(db: Knex, r: NewRun, status: 'PENDING' | 'STAGED' = 'PENDING'): Promise<ImportProcess | null> {
  const [row] = (await db('import_processes')
    .insert(firstRow(r, status))
    .onConflict(['import_supplier', 'external_account_number'])
    .ignore()
    .returning(selection(db))) as Row[];
  return row ? toModel(row) : null;
}

/**
 * Staged data over an existing import that is neither under way nor PROCESSED (the caller holds
 * the row lock and has decided): the payload replaced, STAGED. Over staged data the run number is
 * kept; over an ended run (ERRORED, CANCELLED, a dry run) it moves on, as a new run's does, so
 * that run's workflow, should a replay of it run a step again, finds its run superseded
 * (activities/imports: a stale run acts on nothing) instead of this row.
 */
export async function restage(db: Knex, existing: ImportProcess, r: NewRun): Promise<ImportProcess> {
  const [updated] = (await db('import_processes')
    .where({ id: existing.id })
    .update({ ...runFields(r, 'STAGED'), run: existing.status === 'STAGED' ? existing.run : existing.run + 1 })
    .returning(selection(db))) as Row[];
  return toModel(updated!);
}

export async function setWorkflowRunId(db: Knex, id: string, run: number, workflowRunId: string): Promise<void> {
  await db('import_processes').where({ id, run }).whereNull('workflow_run_id').update({ workflow_run_id: workflowRunId });
}

/** The run's workflow started again elsewhere (resume-restored): its new run id, whatever was there. */
export async function replaceWorkflowRunId(db: Knex, id: string, run: number, workflowRunId: string): Promise<void> {
  await db('import_processes').where({ id, run }).update({ workflow_run_id: workflowRunId });
}

export interface Transition {
  status: ImportStatus;
  step?: string | null;
  krakenIdentifier?: string | null;
  error?: ImportError | null;
  at: Date;
}

/** The columns a status change writes: the status, its latest_event and the given extras. */
function transitionUpdate(t: Transition): Record<string, unknown> {
  const update: Record<string, unknown> = {
    status: t.status,
    latest_event: JSON.stringify(latestEventFor(t.status, t.at, t.error ?? null)),
    modified_at: t.at,
  };
  if (t.step !== undefined) update.current_step = t.step;
  if (t.krakenIdentifier !== undefined) update.kraken_identifier = t.krakenIdentifier;
  if (t.error !== undefined) update.latest_error = t.error ? JSON.stringify(t.error) : null;
  return update;
}

/** Moves the process of the given run to a new status, with its latest_event (and error); false when the run is no longer the row's. */
export async function transition(db: Knex, id: string, run: number, t: Transition): Promise<boolean> {
  const n = await transitionStatement(db, id, run, t);
  return n > 0;
}

/** transition()'s UPDATE, not yet run: for enqueueEvents' `along` (the change and its events in one statement). */
export function transitionStatement(db: Knex, id: string, run: number, t: Transition): Knex.QueryBuilder {
  return db('import_processes').where({ id, run }).update(transitionUpdate(t));
}

/**
 * PENDING → IN_PROGRESS in one statement when the run is this one, still PENDING and inside its
 * window at `at`: the row as written, or null when any of that does not hold (the caller then
 * decides under the row's lock). The columns are transition()'s.
 */
export async function startPendingRun(db: Knex, id: string, run: number, at: Date, step: string): Promise<ImportProcess | null> {
  const [row] = (await db('import_processes')
    .where({ id, run, status: 'PENDING' })
    .where('schedule_window_end', '>=', at)
    .update(transitionUpdate({ status: 'IN_PROGRESS', at, step }))
    .returning(selection(db))) as Row[];
  return row ? toModel(row) : null;
}

export async function setStep(db: Knex, id: string, run: number, step: string): Promise<void> {
  await setStepStatement(db, id, run, step);
}

/** setStep()'s UPDATE, not yet run: for enqueueEvents' `along`. */
export function setStepStatement(db: Knex, id: string, run: number, step: string): Knex.QueryBuilder {
  return db('import_processes').where({ id, run }).update({ current_step: step });
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

/** The import process record exactly as the status operation answers it (the bulk one adds the account number). */
export function toApiRecord(p: ImportProcess) {
  return {
    status: p.status,
    kraken_identifier: p.status === 'PROCESSED' ? p.krakenIdentifier : null,
    created_at: p.createdAt,
    modified_at: p.modifiedAt,
    latest_event: p.latestEvent,
    latest_error: p.latestError,
  };
}
