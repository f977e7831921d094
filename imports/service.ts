import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import type { Logger } from '../lib/logger';
import type { AccountValidator, Issue } from '../account/validator';
import { importWorkflowId } from './workflowId';
import { startImportWorkflow, type EagerStartPolicy } from './startWorkflow';
import { isUniqueViolation } from '../db/pgErrors';
import { ACTIVE, findProcess, ImportProcess, insertFirstRun, type NewRun, setWorkflowRunId, upsertRun } from './store';
import { AlreadyImportedError, AccountValidationError, ImportProcessError } from '../http/errors';

export interface ImportServiceDeps {
  db: Knex;
  temporal: Client;
  taskQueue: string;
  log: Logger;
  /** Eager start (API_EAGER_START): `temporal` is then the client over the hosted worker's connection. */
  eagerStart?: EagerStartPolicy;
}

/** validate: every issue of the payload, or its warnings. */
export async function validateAccount(validator: AccountValidator, body: unknown): Promise<{ warnings: Issue[] }> {
  const outcome = await validator.validate(body, { mode: 'validate' });
  if (!outcome.ok) throw new AccountValidationError(outcome.errors);
  return { warnings: outcome.warnings };
}

/**
 * create (docs/spec/DESIGN.md "Flow of one import"): validate with the same validator; an account with no
 * import process yet is stored as run 1 in one INSERT; otherwise decide under the import row's
 * lock: already PROCESSED → 400; a run under way → 409; else store the payload (claim check) as
 * a new PENDING run. Then start its workflow. A crash after the commit
 * and before the start is repaired by the worker's sweeper, which starts PENDING runs that have no
 * workflow.
 */
export async function createImport(deps: ImportServiceDeps, validator: AccountValidator, body: unknown): Promise<{ warnings: Issue[]; process: ImportProcess }> {
  const outcome = await validator.validate(body, { mode: 'create' });
  if (!outcome.ok) {
    if (outcome.errors.some((e) => e.code === 'import_supplier_migration_not_ongoing')) {
      throw new ImportProcessError(
        'import_supplier_migration_not_ongoing',
        'The import supplier is not accepting migrations (its status is Paused or Complete).',
      );
    }
    throw new ImportProcessError(
      'import_process_failed_validation',
      'The account failed validation. Send it to POST /v2/data-import/accounts/validate/ for the full list of errors.',
    );
  }
  const { account, taskParams, warnings } = outcome;
  const supplier = account.import_supplier;
  const external = account.external_account_number;
  const now = new Date();

  const run: NewRun = {
    importSupplier: supplier,
    externalAccountNumber: external,
    payload: account,
    taskParams: {
      is_dry_run: taskParams.isDryRun,
      schedule_window_start: taskParams.scheduleWindowStart.toISOString(),
      schedule_window_end: taskParams.scheduleWindowEnd.toISOString(),
    },
    isDryRun: taskParams.isDryRun,
    scheduleWindowStart: taskParams.scheduleWindowStart,
    scheduleWindowEnd: taskParams.scheduleWindowEnd,
    workflowId: importWorkflowId(supplier, external),
    warnings,
    validationFingerprint: outcome.fingerprint,
    now,
  };
  // An account sent for the first time (nearly every create of a migration): one INSERT, no
  // transaction. Any other case is decided under the row's lock.
  const txn = async (): Promise<ImportProcess> =>
    deps.db.transaction(async (trx) => {
      const existing = await findProcess(trx, supplier, external, { forUpdate: true });
      if (existing?.status === 'PROCESSED') throw new AlreadyImportedError(existing.krakenIdentifier ?? '');
      if (existing && (ACTIVE as readonly string[]).includes(existing.status)) {
        throw new ImportProcessError(
          'import_process_in_progress',
          `An import of this account is already ${existing.status}; wait for it to finish (GET the import status) before sending it again.`,
        );
      }
      return upsertRun(trx, existing, run);
    });

  let process: ImportProcess;
  try {
    process = (await insertFirstRun(deps.db, run)) ?? (await txn());
  } catch (err) {
    // The row went (retention) after the INSERT found it, and another create inserted it again
    // before the lock: read it again under the lock and answer like any later create.
    if (!isUniqueViolation(err)) throw err;
    process = await txn();
  }

  try {
    const runId = await startImportWorkflow(deps.temporal, deps.taskQueue, process, deps.eagerStart);
    await setWorkflowRunId(deps.db, process.id, process.run, runId);
  } catch (err) {
    // The import is stored; the sweeper starts its workflow when Temporal answers again.
    deps.log.warn({ err: String(err), workflowId: process.workflowId }, 'workflow start failed; the sweeper will retry');
  }
  return { warnings, process };
}
