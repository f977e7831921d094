import type { Knex } from 'knex';
import { londonToday } from '../account/dates';
import { getSupplier } from '../suppliers';
import { enqueueEvents } from '../events/outbox';
import { uuidFromKey } from '../lib/ids';
import { decideRegistration, registrationWindow } from './eligibility';
import { registrationEventKey, registrationRequestedEvent } from './events';
import { findImportedAccount, insertRegistrations, lockMeterPoints, NewRegistration, registrationsOf } from './store';
import {
  MeterPointResult,
  REGISTRATION_FLOW_ERROR,
  REGISTRATION_FLOW_SUCCESS,
  RegistrationOutcome,
  RegistrationRequest,
} from './types';

export interface MarkDeps {
  db: Knex;
  subjectPrefix: string;
  now: () => Date;
  /**
   * The account's import process, read in the transaction (imports/store.ts findProcess, passed in
   * by the activity: the imports feature reads registrations for its transfer status, so
   * registration/ may not import it back).
   */
  findImport: (trx: Knex, importSupplier: string, externalAccountNumber: string) => Promise<{ status: string } | null>;
}

/** What one call did, beside the answer (for logs and metrics). */
export interface MarkReport {
  outcome: RegistrationOutcome;
  marked: number;
  refusals: { mpxn: string; reason: string }[];
}

/**
 * Marks the account's meter points for registration in one transaction, with their
 * registration.requested events in the outbox. Safe to run twice: meter points are locked, a meter
 * point marked already is answered from its row, and event ids come from the meter point id.
 */
export async function markForRegistration(deps: MarkDeps, req: RegistrationRequest): Promise<MarkReport> {
  const notFound = (error_detail: string): MarkReport => ({
    outcome: {
      found: false,
      notFound: { error_detail, import_supplier_code: req.importSupplier, external_account_number: req.externalAccountNumber },
    },
    marked: 0,
    refusals: [],
  });

  return deps.db.transaction(async (trx) => {
    const supplier = await getSupplier(trx, req.importSupplier);
    const process = supplier ? await deps.findImport(trx, req.importSupplier, req.externalAccountNumber) : null;
    if (!supplier || !process) {
      return notFound('No imported account for this import supplier and external account number; check both codes in the path.');
    }
    if (process.status !== 'PROCESSED') {
      return notFound(
        `The account has not been imported (its import process is ${process.status}); only the meter points of an imported (PROCESSED) account can be registered.`,
      );
    }
    const account = await findImportedAccount(trx, req.importSupplier, req.externalAccountNumber);
    if (!account) return notFound('No imported account for this import supplier and external account number; check both codes in the path.');
    const meterPoints = await lockMeterPoints(trx, account.id);
    if (meterPoints.length === 0) return notFound('The account has no meter points to register.');

    const at = deps.now();
    const window = registrationWindow(londonToday(at), supplier.registrationLeadDays);
    const existing = await registrationsOf(trx, meterPoints.map((mp) => mp.id));

    const results: MeterPointResult[] = [];
    const refusals: MarkReport['refusals'] = [];
    const marks: NewRegistration[] = [];
    const events = [];
    for (const mp of meterPoints) {
      const d = decideRegistration(mp, req.supplyStartDate, existing.get(mp.id)?.supplyStartDate ?? null, supplier.marketParticipantId, window);
      if (d.kind === 'refuse') {
        results.push({ mpxn: mp.identifier, status: REGISTRATION_FLOW_ERROR, error_detail: d.detail });
        refusals.push({ mpxn: mp.identifier, reason: d.reason });
        continue;
      }
      results.push({ mpxn: mp.identifier, status: REGISTRATION_FLOW_SUCCESS });
      if (d.kind === 'already_marked') continue;
      const event = registrationRequestedEvent({
        meterPoint: mp,
        supplyStartDate: d.supplyStartDate,
        supplierMpid: d.supplierMpid,
        accountNumber: account.number,
        importSupplier: req.importSupplier,
        externalAccountNumber: req.externalAccountNumber,
        at,
      });
      events.push(event);
      marks.push({
        meterPointId: mp.id,
        accountId: account.id,
        accountNumber: account.number,
        importSupplier: req.importSupplier,
        externalAccountNumber: req.externalAccountNumber,
        mpxn: mp.identifier,
        supplyType: mp.supplyType,
        supplyStartDate: d.supplyStartDate,
        supplierMpid: d.supplierMpid,
        requestedBy: req.requestedBy,
        requestedAt: at,
        eventId: uuidFromKey(registrationEventKey(mp.id)),
      });
    }

    const inserted = await insertRegistrations(trx, marks);
    if (inserted.size !== marks.length) {
      // Cannot happen under the row locks; if it does, answering from stale reads would be wrong,
      // so fail and let the activity retry read the rows afresh.
      throw new Error(`meter point registrations changed under the lock (${inserted.size} of ${marks.length} inserted)`);
    }
    await enqueueEvents(trx, deps.subjectPrefix, events);
    return {
      outcome: {
        found: true,
        record: { import_supplier_code: req.importSupplier, external_account_number: req.externalAccountNumber, meter_points: results },
      },
      marked: marks.length,
      refusals,
    };
  });
}
