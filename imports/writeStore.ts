// The import process's writes: the row locked for a step (with what the step reads along), a new
// run or a restage, the workflow run id, a status transition, the current step.
import type { Knex } from 'knex';
import type { ReferencePair } from '../account/referenceDataStore';
import { accountExistsSql, takenReferencesSql } from '../db/stores/accountLookups';
import { type ImportError, type ImportProcess, type ImportStatus, latestEventFor, type Row, select, selection, toModel } from './rowStore';

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
 * payload's references another account of its import supplier holds (db/stores/accountLookups.ts
 * accountExistsSql and takenReferencesSql, findReferenceOwners asked of the stored payload; references are unique per import supplier).
 * The payload is read as text and parsed by `parse`: the worker passes the bounds a body is held
 * to (issue 47), so a payload stored before them cannot fill its heap.
 */
export async function lockProcessForWrite(trx: Knex, id: string, inlineUpTo = Infinity, parse: (text: string) => unknown = JSON.parse): Promise<LockedForWrite | null> {
  const locked = await lockProcessWith(trx, id, {
    // As text, parsed by `parse` (the caller's bounds, lib/jsonBounds.ts), not by the driver.
    payload: Number.isFinite(inlineUpTo) ? trx.raw('CASE WHEN payload_bytes <= ? THEN payload::text END', [inlineUpTo]) : 'payload::text',
    account_exists: accountExistsSql('import_processes'),
    taken_references: takenReferencesSql('import_processes'),
  });
  if (!locked) return null;
  const { payload, account_exists, taken_references } = locked.extra;
  return { process: locked.process, payload: typeof payload === 'string' ? parse(payload) : undefined, accountExists: account_exists as boolean, takenReferences: taken_references as ReferencePair[] };
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
