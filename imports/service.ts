import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import type { Logger } from '../lib/logger';
import type { AccountValidator, Issue, ValidationOutcome } from '../account/validator';
import { importWorkflowId } from './workflowId';
import { startImportWorkflow } from './startWorkflow';
import { isUniqueViolation } from '../db/pgErrors';
import { findProcess, ImportProcess, insertFirstRun, isActive, type NewRun, setWorkflowRunId, upsertRun } from './store';
import { AlreadyImportedError, DomainError } from '../lib/errors';

export interface ImportServiceDeps {
  db: Knex;
  temporal: Client;
  taskQueue: string;
  log: Logger;
}

/** The service's dependencies as a request handler has them: the wiring's, and the request's log. */
export function importServiceDeps(
  d: { db: Knex; temporal: Client; config: { temporal: { taskQueue: string } } },
  log: Logger,
): ImportServiceDeps {
  return { db: d.db, temporal: d.temporal, taskQueue: d.config.temporal.taskQueue, log };
}

/** validate: every issue of the payload, or its warnings. */
export async function validateAccount(validator: AccountValidator, body: unknown): Promise<{ warnings: Issue[] }> {
  const outcome = await validator.validate(body, { mode: 'validate' });
  if (!outcome.ok) throw accountFailedValidation(outcome.errors);
  return { warnings: outcome.warnings };
}

/**
 * create (docs/spec/DESIGN.md "Flow of one import"): validate with the same validator; an account with no
 * import process yet is stored as run 1 in one INSERT; otherwise decide under the import row's
 * lock: already PROCESSED → 400; a run under way → 409; else store the payload (claim check) as
 * a new PENDING run. Then start its workflow. A crash after the commit
 * and before the start is repaired by the worker's sweeper, which starts PENDING runs that have no
 * workflow. The platform's v1 process (imports/staging.ts) stores and starts its runs through the
 * same steps (newRun, refuseBusy, storeUnderLock, startRun).
 */
export async function createImport(deps: ImportServiceDeps, validator: AccountValidator, body: unknown): Promise<{ warnings: Issue[]; process: ImportProcess }> {
  const outcome = await validator.validate(body, { mode: 'create' });
  if (!outcome.ok) {
    if (outcome.errors.some((e) => e.code === 'import_supplier_migration_not_ongoing')) {
      throw new DomainError('import_supplier_migration_not_ongoing', 'The import supplier is not accepting migrations (its status is Paused or Complete).', IMPORT_PROCESS);
    }
    throw new DomainError(
      'import_process_failed_validation',
      'The account failed validation. Send it to POST /v2/data-import/accounts/validate/ for the full list of errors.',
      IMPORT_PROCESS,
    );
  }
  const run = newRun(outcome);
  // An account sent for the first time (nearly every create of a migration): one INSERT, no
  // transaction. Any other case is decided under the row's lock.
  const process = await storeUnderLock(
    deps.db,
    run,
    (trx, existing) => {
      refuseBusy(existing);
      return upsertRun(trx, existing, run);
    },
    () => insertFirstRun(deps.db, run),
  );
  await startRun(deps, process);
  return { warnings: outcome.warnings, process };
}

/** The new run (or staged data) of a validated account: its payload, task params, warnings and fingerprint. */
export function newRun(outcome: Extract<ValidationOutcome, { ok: true }>): NewRun {
  const { account, taskParams } = outcome;
  return {
    importSupplier: account.import_supplier,
    externalAccountNumber: account.external_account_number,
    payload: account,
    taskParams: {
      is_dry_run: taskParams.isDryRun,
      schedule_window_start: taskParams.scheduleWindowStart.toISOString(),
      schedule_window_end: taskParams.scheduleWindowEnd.toISOString(),
    },
    isDryRun: taskParams.isDryRun,
    scheduleWindowStart: taskParams.scheduleWindowStart,
    scheduleWindowEnd: taskParams.scheduleWindowEnd,
    workflowId: importWorkflowId(account.import_supplier, account.external_account_number),
    warnings: outcome.warnings,
    validationFingerprint: outcome.fingerprint,
    now: new Date(),
  };
}

/** What every write of an import's data refuses under the row's lock: an account already imported (400), a run under way (409). */
export function refuseBusy(existing: ImportProcess | null): void {
  refuseImported(existing);
  if (existing && isActive(existing.status)) {
    throw new DomainError(
      'import_process_in_progress',
      `An import of this account is already ${existing.status}; wait for it to finish (GET the import status) before sending it again.`,
      IMPORT_PROCESS,
    );
  }
}

/** 400 account_import_process_already_imported for an import whose account exists (PROCESSED). */
export function refuseImported(existing: ImportProcess | null): void {
  if (existing?.status === 'PROCESSED') throw new AlreadyImportedError(existing.krakenIdentifier ?? '', existing.externalAccountNumber);
}

/**
 * Writes the import of `run`'s account: `first` (one statement of its own, null when a row exists)
 * when given, else, or then, `write` in a transaction holding the row's lock (the row, or null when
 * there is none). A unique violation (the row went, retention, after the INSERT found it, and
 * another request inserted it again before the lock) is answered by reading it again under the lock.
 */
export async function storeUnderLock<T>(
  db: Knex,
  run: Pick<NewRun, 'importSupplier' | 'externalAccountNumber'>,
  write: (trx: Knex, existing: ImportProcess | null) => Promise<T>,
  first?: () => Promise<T | null>,
): Promise<T> {
  const txn = () =>
    db.transaction(async (trx) => write(trx, await findProcess(trx, run.importSupplier, run.externalAccountNumber, { forUpdate: true })));
  try {
    return (await first?.()) ?? (await txn());
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    return txn();
  }
}

/** Starts the workflow of a stored run; when Temporal does not answer, the sweeper starts it later (the run is stored). */
export async function startRun(deps: ImportServiceDeps, process: ImportProcess): Promise<void> {
  try {
    const runId = await startImportWorkflow(deps.temporal, deps.taskQueue, process);
    await setWorkflowRunId(deps.db, process.id, process.run, runId);
  } catch (err) {
    // The import is stored; the sweeper starts its workflow when Temporal answers again.
    deps.log.warn({ err: String(err), workflowId: process.workflowId }, 'workflow start failed; the sweeper will retry');
  }
}

/** The spec's import-process errors carry their domain (`code, detail and domain`). */
export const IMPORT_PROCESS = { domain: 'import_process' } as const;

/** account_failed_validation with every issue of the account. */
export const accountFailedValidation = (issues: Issue[]) => new DomainError('account_failed_validation', 'The account payload failed validation.', { issues });
