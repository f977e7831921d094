import type { NewEvent } from '../events/outbox';
import { accountOrderingKey } from '../events/orderingKey';
import type { MeterPointForRegistration } from './eligibility';

/** The business key of a meter point's registration event: one event per marked meter point, ever. */
export const registrationEventKey = (meterPointId: number) => `registration:${meterPointId}`;

export interface RegistrationEventInput {
  meterPoint: MeterPointForRegistration;
  supplyStartDate: string;
  supplierMpid: string;
  accountNumber: string;
  importSupplier: string;
  externalAccountNumber: string;
  at: Date;
}

/** meterpoint.{elec,gas}.cos_gain.registration.requested-v1 for one marked meter point. */
export function registrationRequestedEvent(e: RegistrationEventInput): NewEvent {
  const common = {
    key: registrationEventKey(e.meterPoint.id),
    // Ordered after the import's own events (account.created-v1 and the rest).
    orderingKey: accountOrderingKey(e.importSupplier, e.externalAccountNumber),
    occurredAt: e.at,
    version: 'v1' as const,
  };
  if (e.meterPoint.supplyType === 'ELECTRICITY') {
    return {
      ...common,
      type: 'meterpoint.elec.cos_gain.registration.requested',
      data: {
        mpan: e.meterPoint.identifier,
        supply_start_date: e.supplyStartDate,
        supplier_mpid: e.supplierMpid,
        account_number: e.accountNumber,
        // An imported account moves supplier as a migration, not a transfer between our accounts;
        // the import covers import (consumption) MPANs only.
        is_internal_transfer: false,
        is_migrated: true,
        is_export: false,
      },
    };
  }
  return {
    ...common,
    type: 'meterpoint.gas.cos_gain.registration.requested',
    data: {
      mprn: e.meterPoint.identifier,
      supply_start_date: e.supplyStartDate,
      supplier_mpid: e.supplierMpid,
      account_number: e.accountNumber,
    },
  };
}
