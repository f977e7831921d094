/**
 * The contract of send-registration-flows, shared by the API, the workflow and the activity
 * (type-only: the workflow bundle imports nothing else from here).
 */

export const REGISTRATION_FLOW_SUCCESS = 'REGISTRATION_FLOW_SUCCESS';
export const REGISTRATION_FLOW_ERROR = 'REGISTRATION_FLOW_ERROR';
export type RegistrationFlowStatus = typeof REGISTRATION_FLOW_SUCCESS | typeof REGISTRATION_FLOW_ERROR;

export interface RegistrationRequest {
  importSupplier: string;
  externalAccountNumber: string;
  /** `YYYY-MM-DD`, or null for the earliest valid supply start date. */
  supplyStartDate: string | null;
  /** `<organisation>/<key id>` of the caller, or 'unauthenticated'. */
  requestedBy: string;
}

/** One meter point of the spec's Registration result record. */
export interface MeterPointResult {
  mpxn: string;
  status: RegistrationFlowStatus;
  /** Only on REGISTRATION_FLOW_ERROR. */
  error_detail?: string;
}

/** The spec's Registration result record. */
export interface RegistrationRecord {
  import_supplier_code: string;
  external_account_number: string;
  meter_points: MeterPointResult[];
}

/** The spec's 404 item. */
export interface RegistrationNotFound {
  error_detail: string;
  import_supplier_code: string;
  external_account_number: string;
}

export type RegistrationOutcome = { found: true; record: RegistrationRecord } | { found: false; notFound: RegistrationNotFound };
