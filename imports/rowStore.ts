// The import process's row and its model (STYLE #8: row <-> model mapping lives in the store): the
// statuses, the columns every read selects, and the mapping both ways. imports/readStore.ts and
// imports/writeStore.ts run the statements; imports/store.ts is the surface the rest of the code imports.
import type { Knex } from 'knex';
import { isoWithOffset } from '../lib/ids';

export const IMPORT_STATUSES = [
  // Stored and validated by the platform's v1 create-or-update, not yet processed: no run, no
  // workflow (imports/staging.ts). v1 process, or a v2 create, starts its first run.
  'STAGED',
  'PENDING',
  'IN_PROGRESS',
  'DRY_RUN_SUCCEEDED',
  'DRY_RUN_ERRORED',
  'PROCESSED',
  'ERRORED',
  'CANCELLED',
] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];

/** Statuses in which a run is under way: a create answers a conflict. */
export const ACTIVE: readonly ImportStatus[] = ['PENDING', 'IN_PROGRESS'];

/** Whether a run of this import is under way (PENDING or IN_PROGRESS): a create, a stage or a process answers a conflict. */
export const isActive = (status: ImportStatus): boolean => (ACTIVE as readonly string[]).includes(status);

export type LatestEventName =
  | 'EVENT_ACCOUNT_IMPORT_PROCESS_CREATED'
  | 'EVENT_ACCOUNT_IMPORT_PROCESS_PROCESSED'
  | 'EVENT_ACCOUNT_IMPORT_PROCESS_ERRORED';

export interface ImportError {
  code: string;
  detail: string;
  domain: 'import_process';
}

export interface LatestEvent {
  event: LatestEventName;
  occurred_at: string;
  data: ImportError | null;
}

/** The latest_event that goes with each status (docs/spec/DESIGN.md table). */
export function latestEventFor(status: ImportStatus, at: Date, error: ImportError | null = null): LatestEvent {
  const event: LatestEventName =
    status === 'PROCESSED'
      ? 'EVENT_ACCOUNT_IMPORT_PROCESS_PROCESSED'
      : status === 'ERRORED' || status === 'DRY_RUN_ERRORED'
        ? 'EVENT_ACCOUNT_IMPORT_PROCESS_ERRORED'
        : 'EVENT_ACCOUNT_IMPORT_PROCESS_CREATED';
  return { event, occurred_at: isoWithOffset(at), data: event === 'EVENT_ACCOUNT_IMPORT_PROCESS_ERRORED' ? error : null };
}

export interface ImportProcess {
  id: string;
  importSupplier: string;
  externalAccountNumber: string;
  status: ImportStatus;
  krakenIdentifier: string | null;
  isDryRun: boolean;
  scheduleWindowStart: Date;
  scheduleWindowEnd: Date;
  run: number;
  workflowId: string;
  workflowRunId: string | null;
  currentStep: string | null;
  latestEvent: LatestEvent;
  latestError: ImportError | null;
  /** account/fingerprint.ts: what the API's validation of this run's payload depended on. */
  validationFingerprint: string | null;
  /** Size of the stored payload's JSON in bytes; null for runs stored before migration 0013. */
  payloadBytes: number | null;
  createdAt: string;
  modifiedAt: string;
}

/** A row of import_processes as `select` reads it. */
export interface Row {
  id: string;
  import_supplier: string;
  external_account_number: string;
  status: ImportStatus;
  kraken_identifier: string | null;
  is_dry_run: boolean;
  schedule_window_start: Date;
  schedule_window_end: Date;
  run: number;
  workflow_id: string;
  workflow_run_id: string | null;
  current_step: string | null;
  latest_event: LatestEvent;
  latest_error: ImportError | null;
  validation_fingerprint: string | null;
  payload_bytes: number | null;
  created_at_text: string;
  modified_at_text: string;
}

/** A row of import_processes as `select` reads it (the listing query reads the same columns). */
export type ImportProcessRow = Row;

// Microsecond timestamps with an explicit offset, formatted by PostgreSQL (a JS Date would drop
// the microseconds).
const TS = (col: string) =>
  `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"') AS ${col}_text`;
export const COLUMNS = [
  'id', 'import_supplier', 'external_account_number', 'status', 'kraken_identifier', 'is_dry_run',
  'schedule_window_start', 'schedule_window_end', 'run', 'workflow_id', 'workflow_run_id',
  'current_step', 'latest_event', 'latest_error', 'validation_fingerprint', 'payload_bytes',
];

export const selection = (db: Knex) => [...COLUMNS, db.raw(TS('created_at')), db.raw(TS('modified_at'))];

export function select(db: Knex) {
  return db('import_processes').select(selection(db));
}

export const toModel = (r: Row): ImportProcess => ({
  id: String(r.id),
  importSupplier: r.import_supplier,
  externalAccountNumber: r.external_account_number,
  status: r.status,
  krakenIdentifier: r.kraken_identifier,
  isDryRun: r.is_dry_run,
  scheduleWindowStart: r.schedule_window_start,
  scheduleWindowEnd: r.schedule_window_end,
  run: r.run,
  workflowId: r.workflow_id,
  workflowRunId: r.workflow_run_id,
  currentStep: r.current_step,
  latestEvent: r.latest_event,
  latestError: r.latest_error,
  validationFingerprint: r.validation_fingerprint ?? null,
  payloadBytes: r.payload_bytes ?? null,
  createdAt: r.created_at_text,
  modifiedAt: r.modified_at_text,
});

/** The import process record exactly as the status operation answers it (the bulk one adds the account number). */
export function toApiRecord(p: ImportProcess) {
  return {
    status: p.status,
    kraken_identifier: p.status === 'PROCESSED' ? p.krakenIdentifier : null,
    created_at: p.createdAt,
    modified_at: p.modifiedAt,
    latest_event: p.latestEvent,
    latest_error: p.latestError,
  };
}
