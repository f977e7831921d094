import type { Knex } from 'knex';
import type { AccountValidator, Issue } from '../account/validator';
import type { Account } from '../account/schema';
import { DomainError } from '../lib/errors';
import { type JsonLimits, parseBounded } from '../lib/jsonBounds';
import { findProcess, getPayloadText, type ImportProcess, insertFirstRun, insertRow, restage, upsertRun } from './store';
import { accountFailedValidation, IMPORT_PROCESS, type ImportServiceDeps, newRun, refuseBusy, refuseImported, startRun, storeUnderLock } from './service';

/**
 * The platform's staged imports (its v1 create-or-update and process, docs/api.md "Staged
 * imports"): the account's data is stored and validated first, as STAGED (no run, no workflow),
 * and updated as often as wanted; process then starts its run exactly as a v2 create does (the
 * same validation, store under the row's lock, workflow start, sweeper), so a staged account and a
 * v2-created one are alike once imported.
 */

/**
 * The answer to an account that failed validation where the platform returns every error (v1
 * validate-account, create-or-update, process): `code` with the issues; a supplier that is Paused
 * or Complete keeps its own code, as on v2 create.
 */
function validationFailure(issues: Issue[], code: 'account_failed_validation' | 'import_process_failed_validation'): DomainError {
  if (issues.some((e) => e.code === 'import_supplier_migration_not_ongoing')) {
    return new DomainError('import_supplier_migration_not_ongoing', 'The import supplier is not accepting migrations (its status is Paused or Complete).', { issues });
  }
  return code === 'account_failed_validation'
    ? accountFailedValidation(issues)
    : new DomainError(code, 'The staged account failed validation; nothing was started.', { issues });
}

/**
 * v1 validate-account: the bare Account under the rules of v2 validate (an envelope's `payload` is
 * an unknown field here); valid, the account as validated (phone numbers and postcodes in their
 * stored form) with its warnings. The platform's document also refuses an account already
 * imported (its AccountAlreadyImportedResponse): so does this one, once the account is valid.
 */
export async function validateBareAccount(db: Knex, validator: AccountValidator, account: unknown): Promise<{ account: Account; warnings: Issue[] }> {
  const outcome = await validator.validate({ payload: account }, { mode: 'validate' });
  if (!outcome.ok) throw validationFailure(outcome.errors, 'account_failed_validation');
  const existing = await findProcess(db, outcome.account.import_supplier, outcome.account.external_account_number);
  refuseImported(existing);
  return { account: outcome.account, warnings: outcome.warnings };
}

/**
 * v1 create-or-update: the bare Account (the platform's body; an envelope's `payload` is an
 * unknown field here) validated as a create validates it (the supplier must be Ongoing), then
 * stored as STAGED: a new account in one INSERT of its own (`created`), any other under the row's
 * lock, refused when it is already imported (400) or a run of it is under way (409).
 */
export async function stageAccount(db: Knex, validator: AccountValidator, account: unknown): Promise<{ created: boolean; warnings: Issue[]; process: ImportProcess }> {
  const outcome = await validator.validate({ payload: account }, { mode: 'create' });
  if (!outcome.ok) throw validationFailure(outcome.errors, 'account_failed_validation');
  const run = newRun(outcome);
  let created = false;
  const process = await storeUnderLock(
    db,
    run,
    async (trx, existing) => {
      refuseBusy(existing);
      created = existing === null;
      return existing ? restage(trx, existing, run) : insertRow(trx, run, 'STAGED');
    },
    async () => {
      const first = await insertFirstRun(db, run, 'STAGED');
      created = first !== null;
      return first;
    },
  );
  return { created, warnings: outcome.warnings, process };
}

export interface ProcessRequest {
  importSupplier: string;
  externalAccountNumber: string;
  dryRun: boolean;
  /** The platform's operations team to link the account to: stored as the Account's own field. */
  operationsTeamName?: string;
}

/** How process reads a stored payload back: the API's body budget and JSON bounds (imports/http/processStaged.ts). */
export interface StoredPayloadReader {
  json: JsonLimits;
  /** Runs `read` once the budget has room for `bytes` (null: unknown size), holding it until `read` settles. */
  admit<T>(bytes: number | null, read: () => Promise<T>): Promise<T>;
}

/** Staged data that changed under a process this many times in a row answers 409. */
const MAX_PROCESS_ATTEMPTS = 3;

export const importProcessDoesNotExist = () =>
  new DomainError('import_process_does_not_exist', 'No staged account for this import supplier and external account number: stage it first (create-or-update).');

/**
 * v1 process: the account's stored data (staged, or kept by a run that ended without an account:
 * ERRORED, CANCELLED, a dry run) validated again as a create validates it, then a new run stored
 * and its workflow started, exactly as createImport does. The payload is validated outside the
 * row's lock (validation reads the database through the pool); under the lock the row must be the
 * one that was validated (same run, same modified_at), else an update landed meanwhile and the
 * newer data is read and validated again. Refused: no import process (400
 * import_process_does_not_exist), already imported (400), a run under way (409). The caller has
 * checked the grant (a supplier outside it answers as one without the import process).
 */
export async function processStaged(deps: ImportServiceDeps, validator: AccountValidator, req: ProcessRequest, reader: StoredPayloadReader): Promise<{ warnings: Issue[]; process: ImportProcess }> {
  for (let attempt = 0; attempt < MAX_PROCESS_ATTEMPTS; attempt++) {
    const found = await findProcess(deps.db, req.importSupplier, req.externalAccountNumber);
    if (!found) throw importProcessDoesNotExist();
    refuseBusy(found);
    // Read back as a body arrives (issue 47): within the body budget for its stored size, and
    // parsed within the JSON bounds; the parsed payload is held until its run is stored. Read
    // after the row: an update landing between the two reads fails the check under the lock.
    const outcome = await reader.admit(found.payloadBytes, async () => {
      const text = await getPayloadText(deps.db, found.id);
      const payload = (text === null ? null : parseBounded(text, reader.json)) as Record<string, unknown>;
      const account = req.operationsTeamName === undefined ? payload : { ...payload, operations_team_name: req.operationsTeamName };
      return validator.validate({ payload: account, task_params: { is_dry_run: req.dryRun } }, { mode: 'create' });
    });
    if (!outcome.ok) throw validationFailure(outcome.errors, 'import_process_failed_validation');
    const run = newRun(outcome);
    const process = await storeUnderLock(deps.db, run, async (trx, existing) => {
      if (!existing) throw importProcessDoesNotExist();
      refuseBusy(existing);
      if (existing.run !== found.run || existing.modifiedAt !== found.modifiedAt) return null;
      return upsertRun(trx, existing, run);
    });
    if (process) {
      await startRun(deps, process);
      return { warnings: outcome.warnings, process };
    }
  }
  throw new DomainError('import_process_in_progress', 'The staged account kept changing while it was being processed; send process again once its updates are done.', IMPORT_PROCESS);
}
