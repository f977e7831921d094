import type { Knex } from 'knex';
import { createAccountValidator, AccountValidator, SupplierConfig } from '../account/validator';
import { LocalDocumentStore, DocumentStore } from '../account/documents';
import { ReferenceDataCache } from '../account/referenceDataCache';
import { findReferenceOwners } from '../account/referenceDataStore';
import { getSupplier, ImportSupplier } from '../db/stores/suppliers';

export function toSupplierConfig(s: ImportSupplier): SupplierConfig {
  return {
    code: s.code,
    status: s.status,
    documentRoot: s.documentRoot,
    checkDocumentExistence: s.checkDocumentExistence,
    sendCustomerEmails: s.sendCustomerEmails,
  };
}

/**
 * The validator as the API and the worker use it: reference data from the in-memory cache,
 * suppliers and reference ownership from PostgreSQL. `allowSupplier` narrows the suppliers to the
 * caller's grant: a supplier outside it is reported exactly like an unknown one.
 */
export function databaseValidator(opts: {
  db: Knex;
  cache: ReferenceDataCache;
  documentStore?: DocumentStore;
  allowSupplier?: (code: string) => boolean;
}): AccountValidator {
  const { db, cache } = opts;
  return createAccountValidator({
    referenceData: () => cache.current(),
    suppliers: async (code) => {
      if (opts.allowSupplier && !opts.allowSupplier(code)) return null;
      const s = await getSupplier(db, code);
      return s ? toSupplierConfig(s) : null;
    },
    referenceOwners: (account, pairs) => findReferenceOwners(db, account, pairs),
    documentStore: opts.documentStore ?? new LocalDocumentStore(),
  });
}
