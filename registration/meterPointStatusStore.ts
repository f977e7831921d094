import type { Knex } from 'knex';
import type { RegistrationStatus } from './store';

/**
 * Each MPAN/MPRN of the imported account in payload order with its registration record's status
 * (null: none yet), in one query. Null when the account is not imported (unknown supplier or
 * account, or only staged).
 */
export async function meterPointRegistrations(db: Knex, importSupplier: string, externalAccountNumber: string): Promise<{ identifier: string; status: RegistrationStatus | null }[] | null> {
  const account = await db('accounts').where({ import_supplier: importSupplier, external_account_number: externalAccountNumber }).first('id');
  if (!account) return null;
  return (await db('meter_points as mp')
    .leftJoin('meter_point_registrations as r', 'r.meter_point_id', 'mp.id')
    .where('mp.account_id', account.id)
    .orderBy('mp.id')
    .select('mp.identifier', 'r.status')) as { identifier: string; status: RegistrationStatus | null }[];
}
