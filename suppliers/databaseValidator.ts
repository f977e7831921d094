import type { Knex } from 'knex';
import { createAccountValidator, AccountValidator, SupplierConfig } from '../account/validator';
import { LocalDocumentStore, DocumentStore } from '../account/documents';
import { ReferenceDataCache } from '../account/referenceDataCache';
import { findReferenceOwners } from '../db/stores/accountLookups';
import { getSupplier, ImportSupplier } from './store';

export function toSupplierConfig(s: ImportSupplier): SupplierConfig {
  return {
    code: s.code,
    status: s.status,
    documentRoot: s.documentRoot,
    checkDocumentExistence: s.checkDocumentExistence,
    sendCustomerEmails: s.sendCustomerEmails,
  };
}

/** How long a supplier's configuration read from PostgreSQL is reused by one process. */
export const SUPPLIER_CACHE_MS = 2000;

const supplierCaches = new WeakMap<Knex, Map<string, { value: SupplierConfig | null; expires: number }>>();

/**
 * Suppliers change rarely (an operator's status or configuration change) and every validation
 * reads one: each process reuses what it read for SUPPLIER_CACHE_MS, so an operator's change takes
 * effect within two seconds (docs/operations.md "Operator CLI"). The cache belongs to the pool `db`.
 */
export async function cachedSupplier(db: Knex, code: string, opts: { now?: number; via?: Knex } = {}): Promise<SupplierConfig | null> {
  const now = opts.now ?? Date.now();
  let cache = supplierCaches.get(db);
  if (!cache) supplierCaches.set(db, (cache = new Map()));
  const hit = cache.get(code);
  if (hit && hit.expires > now) return hit.value;
  // A caller inside a transaction reads through it (`via`): taking a second pool connection while
  // holding one would deadlock a full pool.
  const s = await getSupplier(opts.via ?? db, code);
  const value = s ? toSupplierConfig(s) : null;
  if (cache.size > 10_000) cache.clear(); // unknown codes sent by a hostile caller stay bounded
  cache.set(code, { value, expires: now + SUPPLIER_CACHE_MS });
  return value;
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
      return cachedSupplier(db, code);
    },
    referenceOwners: (account, pairs) => findReferenceOwners(db, account, pairs),
    documentStore: opts.documentStore ?? new LocalDocumentStore(),
  });
}

