/**
 * Every stable failure type the workflows record (ApplicationFailure.type at the activity
 * boundary, docs/spec/STYLE.md #5): it becomes the import's latest_error.code, or post_import.error's
 * error_code, so these strings are part of the API and the event catalogue and never change.
 * Pure constants: the workflow bundle imports this module, so it imports nothing.
 */

/** The import's steps (activities in activities/imports/, the workflow in workflows/accountImport.ts). */
export const IMPORT_FAILURE = {
  validation: 'import_process_failed_validation',
  creation: 'import_process_creation_failed',
  cancelled: 'import_process_cancelled',
  superseded: 'import_process_superseded',
  eventSchema: 'event_schema_violation',
  /** A step found its run already ended by another attempt; recordFailure reports that end. */
  settled: 'import_process_already_settled',
  /** Recorded by the workflow when retries of an infrastructure failure ran out. */
  infrastructure: 'import_process_infrastructure_unavailable',
} as const;

/** The registrationFlows workflow's step (activities/registration.ts). */
export const REGISTRATION_FAILURE = {
  /** A registration event that does not match its catalogue schema (our bug). */
  eventSchema: 'event_schema_violation',
} as const;

/** The customer e-mail steps of post-import (activities/emails/customerEmails.ts): post_import.error's error_code. */
export const EMAIL_FAILURE = {
  superseded: 'import_process_superseded',
  senderNotConfigured: 'customer_email_sender_not_configured',
  relayNotConfigured: 'customer_email_relay_not_configured',
  temporary: 'customer_email_temporary_failure',
  deliveryFailed: 'customer_email_delivery_failed',
} as const;
