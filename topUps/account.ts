import type { Knex } from 'knex';
import type { Context } from 'koa';
import { DomainError } from '../lib/errors';
import { canAccessSupplier } from '../http/principal';
import { getSupplier, type ImportSupplier } from '../suppliers';
import { lockAccountRow } from '../db/stores/accountLookups';

/** The imported account a top-up writes to, with what its checks need of the supplier. */
export interface TopUpAccount {
  id: string;
  number: string;
  importSupplier: string;
  externalAccountNumber: string;
}

const NOT_IMPORTED =
  'No imported account for this import supplier and external account number; check that the account has been imported (not just staged) and both codes.';

/**
 * The supplier of a top-up, as the platform's validators check it: outside the caller's grant or
 * unknown → 404 (alike); not Ongoing → import_supplier_migration_not_ongoing.
 */
export async function topUpSupplier(db: Knex, ctx: Context, code: string): Promise<ImportSupplier> {
  const supplier = canAccessSupplier(ctx, code) ? await getSupplier(db, code) : null;
  if (!supplier) throw new DomainError('not_found', NOT_IMPORTED);
  if (supplier.status !== 'Ongoing') {
    throw new DomainError('import_supplier_migration_not_ongoing', `The migration of ${code} is ${supplier.status}: it takes no more data.`);
  }
  return supplier;
}

/**
 * The imported account, locked (FOR UPDATE) until the caller's transaction ends: top-ups of one
 * account take turns, so each sees what the one before it wrote (and a retry sees its own first
 * attempt). 404 when the account was never imported (only staged, or unknown).
 */
export async function lockImportedAccount(trx: Knex, importSupplier: string, externalAccountNumber: string): Promise<TopUpAccount> {
  const row = await lockAccountRow(trx, importSupplier, externalAccountNumber);
  if (!row) throw new DomainError('not_found', NOT_IMPORTED);
  return { ...row, importSupplier, externalAccountNumber };
}
