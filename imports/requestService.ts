import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import type { DocumentStore } from '../account/documents';
import type { ReferenceDataCache } from '../account/referenceDataCache';
import type { Logger } from '../lib/logger';
import { databaseValidator } from '../suppliers';
import { createImport, importServiceDeps, validateAccount } from './service';
import { processStaged, type ProcessRequest, stageAccount, type StoredPayloadReader, validateBareAccount } from './staging';

/** What the import service of one request is built from (the API's dependencies). */
export interface ImportRequestDeps {
  db: Knex;
  temporal: Client;
  config: { temporal: { taskQueue: string } };
  referenceData: ReferenceDataCache;
  documentStore?: DocumentStore;
}

/** Who asks: the request's log and the import suppliers the caller's grant reaches. */
export interface ImportCaller {
  log: Logger;
  mayAccess: (importSupplier: string) => boolean;
}

/**
 * The import service as one request sees it: every operation that validates an Account (v2
 * validate and create, the platform's v1 validate-account, stage and process) with the validator
 * built here, once, for the caller's grant: it sees only the caller's suppliers, so another
 * organisation's is reported exactly like an unknown one (`import_supplier_not_found`). No HTTP
 * handler builds a validator; the functions below it still take one, so a test can pass its own.
 */
export function importService(deps: ImportRequestDeps, caller: ImportCaller) {
  const validator = databaseValidator({ db: deps.db, cache: deps.referenceData, documentStore: deps.documentStore, allowSupplier: caller.mayAccess });
  const service = () => importServiceDeps(deps, caller.log);
  return {
    validate: (body: unknown) => validateAccount(validator, body),
    create: (body: unknown) => createImport(service(), validator, body),
    validateBare: (account: unknown) => validateBareAccount(deps.db, validator, account),
    stage: (account: unknown) => stageAccount(deps.db, validator, account),
    process: (req: ProcessRequest, reader: StoredPayloadReader) => processStaged(service(), validator, req, reader),
  };
}
