import type { Knex } from 'knex';
import { meterPointRegistrationRows } from '../db/stores/accountLookups';
import type { RegistrationStatus } from './store';

/**
 * The platform's industry status of a meter point (GbrMeterPointStatus), as far as this service
 * can know it. The states the registration records reach (registration/, migration 0006) map as:
 * no mark yet → PRE_REGISTRATION; MARKED (send-registration-flows, waiting to be picked up) →
 * UNDERGOING_REGISTRATION; SENT (the flow went to the industry) → REGISTRATION_REQUESTED;
 * CONFIRMED → REGISTRATION_ACCEPTED; REJECTED → REGISTRATION_REJECTED. The rest of the platform's
 * enumeration is listed (the OpenAPI document carries it) but not reached here.
 */
export const METER_POINT_STATUSES = [
  'PRE_REGISTRATION', 'UNABLE_TO_REGISTER', 'AREGI_SENT', 'NOMINATION_SENT', 'NOMINATION_REJECTED',
  'OFFER_RECEIVED', 'OFFER_REJECTED', 'REGISTRATION_REQUESTED', 'REGISTRATION_ACCEPTED', 'REGISTRATION_REJECTED',
  'WITHDRAWAL_REQUESTED', 'REGISTRATION_WITHDRAWN', 'OBJECTION_RECEIVED', 'REGISTRATION_OBJECTED', 'MTD_RECEIVED',
  'ON_SUPPLY', 'OPENING_READ_DISPUTED', 'MTD_DISPUTED', 'METER_EXCHANGE_REQUESTED', 'ERRONEOUS_GAIN_PROPOSED',
  'ERRONEOUS_GAIN_ACCEPTED', 'ERRONEOUS_GAIN_REJECTED', 'ERRONEOUS_GAIN_CANCELLED', 'LOSS_REQUESTED_ERRONEOUS_GAIN',
  'LOSS_PENDING_ERRONEOUS_GAIN', 'LOST_ERRONEOUS_GAIN', 'ERRONEOUS_LOSS_PROPOSED', 'ERRONEOUS_LOSS_ACCEPTED',
  'ERRONEOUS_LOSS_REJECTED', 'ERRONEOUS_LOSS_CANCELLED', 'ET_REQUESTED', 'ET_ACCEPTED', 'ET_LOSS_PENDING',
  'ET_COMPLETED', 'ET_CANCELLED', 'LOSS_REQUESTED', 'LOSS_PENDING', 'LOST', 'DISCONNECTED', 'ERRONEOUS_LOSS',
  'LOSS_OBJECTION_REQUESTED', 'LOSS_OBJECTION_REMOVAL_REQUESTED', 'LOSS_OBJECTION_ACCEPTED', 'CLOSING_READ_DISPUTE',
  'DE-ENERGISED', 'UNDERGOING_REGISTRATION', 'REGISTRATION_AT_RISK', 'GAIN_PENDING_DAP', 'LOSS_PENDING_DAP',
] as const;
export type MeterPointStatus = (typeof METER_POINT_STATUSES)[number];

export const STATUS_OF_REGISTRATION: Record<RegistrationStatus, MeterPointStatus> = {
  MARKED: 'UNDERGOING_REGISTRATION',
  SENT: 'REGISTRATION_REQUESTED',
  CONFIRMED: 'REGISTRATION_ACCEPTED',
  REJECTED: 'REGISTRATION_REJECTED',
};

export interface MeterPointStatusItem {
  mpxn: string;
  status: MeterPointStatus;
}

/**
 * Each MPAN/MPRN of the imported account in payload order with its status, read from the
 * registration records in the same query: whatever the registration flows last committed is what
 * this answers, with no copy to keep in step. Null when the account is not imported (unknown
 * supplier or account, or only staged).
 */
export async function meterPointStatuses(db: Knex, importSupplier: string, externalAccountNumber: string): Promise<MeterPointStatusItem[] | null> {
  const rows = await meterPointRegistrationRows(db, importSupplier, externalAccountNumber);
  return rows && rows.map((r) => ({ mpxn: r.identifier, status: r.status ? STATUS_OF_REGISTRATION[r.status as RegistrationStatus] : 'PRE_REGISTRATION' }));
}
