import type { Knex } from 'knex';
import { findImportedAccount as findAccount, lockMeterPointRows } from '../db/stores/accountLookups';
import type { MeterPointForRegistration } from './eligibility';

/**
 * Rows of meter_point_registrations (migration 0006) and the account slice registration needs
 * (read by db/stores/accountLookups.ts, the Account's tables' owner).
 * Every function takes a knex handle that may be a transaction; none opens its own (docs/spec/STYLE.md #8).
 */

export const REGISTRATION_STATUSES = ['MARKED', 'SENT', 'CONFIRMED', 'REJECTED'] as const;
export type RegistrationStatus = (typeof REGISTRATION_STATUSES)[number];

export interface Registration {
  id: number;
  meterPointId: number;
  accountId: number;
  accountNumber: string;
  importSupplier: string;
  externalAccountNumber: string;
  mpxn: string;
  supplyType: 'ELECTRICITY' | 'GAS';
  supplyStartDate: string;
  supplierMpid: string;
  status: RegistrationStatus;
  requestedBy: string;
  requestedAt: Date;
  eventId: string;
}

interface Row {
  id: string | number;
  meter_point_id: string | number;
  account_id: string | number;
  account_number: string;
  import_supplier: string;
  external_account_number: string;
  mpxn: string;
  supply_type: 'ELECTRICITY' | 'GAS';
  supply_start_date: string;
  supplier_mpid: string;
  status: RegistrationStatus;
  requested_by: string;
  requested_at: Date;
  event_id: string;
}

const toModel = (r: Row): Registration => ({
  id: Number(r.id),
  meterPointId: Number(r.meter_point_id),
  accountId: Number(r.account_id),
  accountNumber: r.account_number,
  importSupplier: r.import_supplier,
  externalAccountNumber: r.external_account_number,
  mpxn: r.mpxn,
  supplyType: r.supply_type,
  supplyStartDate: r.supply_start_date,
  supplierMpid: r.supplier_mpid,
  status: r.status,
  requestedBy: r.requested_by,
  requestedAt: r.requested_at,
  eventId: r.event_id,
});

export type NewRegistration = Omit<Registration, 'id' | 'status'>;

export interface ImportedAccount {
  id: number;
  number: string;
}

export async function findImportedAccount(db: Knex, importSupplier: string, externalAccountNumber: string): Promise<ImportedAccount | null> {
  return findAccount(db, importSupplier, externalAccountNumber);
}

/**
 * The account's meter points in payload order, locked (FOR UPDATE) until the transaction ends:
 * two requests for the same account take turns, so the second sees the first one's marks.
 */
export async function lockMeterPoints(trx: Knex, accountId: number): Promise<MeterPointForRegistration[]> {
  const rows = await lockMeterPointRows(trx, accountId);
  return rows.map((r) => ({
    id: Number(r.id),
    identifier: r.identifier as string,
    supplyType: r.supply_type as 'ELECTRICITY' | 'GAS',
    mpid: (r.mpid as string | null) ?? null,
    supplyStartDate: (r.supply_start_date as string | null) ?? null,
    etInProgress: r.et_in_progress === true,
    drInProgress: r.dr_in_progress === true,
  }));
}

export async function registrationsOf(db: Knex, meterPointIds: number[]): Promise<Map<number, Registration>> {
  if (meterPointIds.length === 0) return new Map();
  const rows = (await db<Row>('meter_point_registrations').whereIn('meter_point_id', meterPointIds)) as Row[];
  return new Map(rows.map((r) => [Number(r.meter_point_id), toModel(r)]));
}

/**
 * Inserts the marks; a meter point marked already keeps its row (the unique key on meter_point_id
 * is the last line of defence behind the row locks). Returns the meter point ids actually inserted.
 */
export async function insertRegistrations(trx: Knex, regs: NewRegistration[]): Promise<Set<number>> {
  if (regs.length === 0) return new Set();
  const inserted = await trx('meter_point_registrations')
    .insert(
      regs.map((r) => ({
        meter_point_id: r.meterPointId,
        account_id: r.accountId,
        account_number: r.accountNumber,
        import_supplier: r.importSupplier,
        external_account_number: r.externalAccountNumber,
        mpxn: r.mpxn,
        supply_type: r.supplyType,
        supply_start_date: r.supplyStartDate,
        supplier_mpid: r.supplierMpid,
        requested_by: r.requestedBy,
        requested_at: r.requestedAt,
        event_id: r.eventId,
      })),
    )
    .onConflict('meter_point_id')
    .ignore()
    .returning('meter_point_id');
  return new Set(inserted.map((r: { meter_point_id: string | number }) => Number(r.meter_point_id)));
}

export interface RegistrationFilter {
  importSupplier?: string;
  status?: RegistrationStatus;
  limit?: number;
}

/** Newest first, for operators. */
export async function listRegistrations(db: Knex, f: RegistrationFilter = {}): Promise<Registration[]> {
  const q = db<Row>('meter_point_registrations').orderBy('id', 'desc');
  if (f.importSupplier) q.where({ import_supplier: f.importSupplier });
  if (f.status) q.where({ status: f.status });
  if (f.limit) q.limit(f.limit);
  return ((await q) as Row[]).map(toModel);
}
