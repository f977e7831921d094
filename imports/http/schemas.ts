import { Type } from '@sinclair/typebox';
import { ref } from '../../http/openapi';
import { IMPORT_STATUSES } from '../store';

/**
 * The parts of the OpenAPI document the v2 account operations share: the bodies they take, the
 * answer of validate and create, and the record of the status operation (imports/store.ts
 * toApiRecord) that the bulk operations repeat per account.
 */

/** An Account, or the envelope: the body of validate and create. */
export const accountBody = {
  required: true,
  description: 'An Account, or the envelope `{payload: Account, task_params}` (an Account has no field `payload`, so the two never collide).',
  content: { 'application/json': { schema: { oneOf: [ref('Account'), ref('Envelope')] } } },
};

export const WARNINGS_SCHEMAS = {
  Warnings: { type: 'object', required: ['warnings'], additionalProperties: false, properties: { warnings: { type: 'array', items: ref('Issue') } } },
};

/** At most this many account numbers per bulk status or digest request (one indexed SELECT of bounded size). */
export const MAX_STATUS_NUMBERS = 500;

/** Body of the bulk status and digest operations; placed in the OpenAPI document as it is. */
export const StatusesRequestSchema = Type.Object(
  {
    import_supplier: Type.String({ minLength: 1, maxLength: 64 }),
    external_account_numbers: Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { minItems: 1, maxItems: MAX_STATUS_NUMBERS }),
  },
  { additionalProperties: false },
);

const IMPORT_PROCESS = {
  type: 'object',
  required: ['status', 'kraken_identifier', 'created_at', 'modified_at', 'latest_event', 'latest_error'],
  additionalProperties: false,
  properties: {
    status: { type: 'string', enum: [...IMPORT_STATUSES], description: 'The states of the spec, and STAGED: stored and validated by the platform\'s v1 create-or-update, not yet processed (no run yet).' },
    kraken_identifier: { type: ['string', 'null'], description: 'Null until PROCESSED; then the platform account number.' },
    created_at: { type: 'string', format: 'date-time' },
    modified_at: { type: 'string', format: 'date-time' },
    latest_event: {
      type: 'object',
      required: ['event', 'occurred_at', 'data'],
      properties: { event: { type: 'string' }, occurred_at: { type: 'string', format: 'date-time' }, data: ref('ProcessError') },
    },
    latest_error: ref('ProcessError'),
  },
};

/** The record of the status operation (imports/store.ts toApiRecord), and what it refers to. */
export const IMPORT_PROCESS_SCHEMAS = {
  ProcessError: {
    type: ['object', 'null'],
    required: ['code', 'detail', 'domain'],
    properties: { code: { type: 'string' }, detail: { type: 'string' }, domain: { type: 'string' } },
  },
  ImportProcess: IMPORT_PROCESS,
};

/** The record of the status operation with the account it is of (the bulk operations' `results`), and the request body. */
export const BULK_SCHEMAS = {
  ...IMPORT_PROCESS_SCHEMAS,
  ImportProcessOfAccount: {
    ...IMPORT_PROCESS,
    description: 'The record of the status operation, with the account it is of.',
    required: ['external_account_number', ...IMPORT_PROCESS.required],
    properties: { external_account_number: { type: 'string', maxLength: 128 }, ...IMPORT_PROCESS.properties },
  },
  ImportStatusesRequest: JSON.parse(JSON.stringify(StatusesRequestSchema)) as unknown,
};

/** A bulk operation's answer: the records found (of `item`), and the numbers without an import process. */
export const bulkAnswerSchema = (item: string, max: number) => ({
  type: 'object',
  required: ['results', 'not_found'],
  additionalProperties: false,
  properties: {
    results: { type: 'array', maxItems: max, description: 'One record per requested number with an import process, in the order of the request.', items: ref(item) },
    not_found: { type: 'array', maxItems: max, description: 'The requested numbers with no import process (all of them for a supplier outside your grant), each once.', items: { type: 'string' } },
  },
});

/** The digest operation's record: the bulk one with the digest of the account as stored. */
export const digestRecordSchema = {
  ...IMPORT_PROCESS,
  description: 'The record of the status operation, with the account it is of and the digest of the account as stored.',
  required: ['external_account_number', ...IMPORT_PROCESS.required, 'digest'],
  properties: {
    external_account_number: { type: 'string', maxLength: 128 },
    ...IMPORT_PROCESS.properties,
    digest: {
      type: ['string', 'null'],
      pattern: '^sha256:[0-9a-f]{64}$',
      description: '`sha256:` and the hex SHA-256 of the canonical JSON of the account as stored (docs/bulk-migration.md, "The canonical form"); null when no account exists (the import is not PROCESSED).',
    },
  },
};
