import type { Knex } from 'knex';
import { findProcess, type ImportStatus } from './store';
import { type MeterPointStatusItem, meterPointStatuses } from '../registration';

/** The platform's AccountTransferStatus `status` values. */
export const TRANSFER_STATUSES = ['UNKNOWN', 'COMPLETED', 'IN_PROGRESS'] as const;
export type TransferStatus = (typeof TRANSFER_STATUSES)[number];

/**
 * The platform's transfer status of an import, from its status here: COMPLETED once the account
 * exists (PROCESSED); IN_PROGRESS while a run is under way (PENDING, IN_PROGRESS, a dry run's
 * too: "a migration process" is at work on the account); UNKNOWN otherwise — staged and never
 * processed, or the last run ended without an account (ERRORED, CANCELLED, a dry run's end), the
 * platform's "a previous process attempt has failed, or the import has never been attempted".
 */
export function transferStatusOf(status: ImportStatus): TransferStatus {
  if (status === 'PROCESSED') return 'COMPLETED';
  if (status === 'PENDING' || status === 'IN_PROGRESS') return 'IN_PROGRESS';
  return 'UNKNOWN';
}

export interface AccountTransferStatus {
  status: TransferStatus;
  /** The account number once COMPLETED, else the empty string (the platform's document). */
  kraken_account_number: string;
  /** The platform's deprecated copy of kraken_account_number. */
  account_number: string;
  /** Ours, beside the platform's fields: each meter point of the account with its registration status (meterpoint-statuses); empty until COMPLETED. */
  meter_points: MeterPointStatusItem[];
}

/** The transfer status record of an account's import; null when the account has no import process. */
export async function accountTransferStatus(db: Knex, importSupplier: string, externalAccountNumber: string): Promise<AccountTransferStatus | null> {
  const p = await findProcess(db, importSupplier, externalAccountNumber);
  if (!p) return null;
  const status = transferStatusOf(p.status);
  const number = status === 'COMPLETED' ? (p.krakenIdentifier ?? '') : '';
  const meterPoints = status === 'COMPLETED' ? ((await meterPointStatuses(db, importSupplier, externalAccountNumber)) ?? []) : [];
  return { status, kraken_account_number: number, account_number: number, meter_points: meterPoints };
}
