import type { ErrorCode } from './errors';

/**
 * What every operation's part of the OpenAPI document (http/operation.ts) is written with: the
 * helpers, the responses every authenticated operation may give, and the schemas of the error
 * bodies (the service's own and the platform's shapes of http/middleware/errorShape.ts), each
 * naming codes of the one list (http/errors.ts ERROR_CODES), so the document cannot drift from it.
 */

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

export function json(schema: unknown, description: string, headers?: Record<string, unknown>) {
  return { description, ...(headers ? { headers } : {}), content: { 'application/json': { schema } } };
}

/** Codes answered with one status: a typed list, checked against ERROR_CODES. */
export function codesOf(...codes: ErrorCode[]): ErrorCode[] {
  return codes;
}

export const supplierParam = (name: string) => ({ name, in: 'path', required: true, description: 'Import supplier code.', schema: { type: 'string', maxLength: 64 } });
export const externalParam = (name: string) => ({ name, in: 'path', required: true, description: "The caller's account identifier.", schema: { type: 'string', maxLength: 128 } });
export const security = [{ Token: [] }];

/** A TypeBox schema as plain JSON for the document's components (its symbols dropped). */
export const plain = (schema: unknown) => JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;

function errorSchema(codes: ErrorCode[], description?: string) {
  return {
    type: 'object',
    description,
    required: ['detail', 'code'],
    additionalProperties: false,
    properties: { detail: { type: 'string', description: 'Human-readable; wording may change.' }, code: { type: 'string', enum: codes } },
  };
}

/**
 * `errors` of a v2 400 that is not per field: always there, always empty (the platform's
 * StandardizedValidationErrorResponse requires the key; docs/platform-compatibility.md).
 */
const NO_ISSUES = { type: 'array', maxItems: 0, items: { $ref: '#/components/schemas/Issue' }, description: 'Always present (the platform\'s shape); empty when the failure is not per field.' };

function importProcessError(codes: ErrorCode[], withIssues: boolean) {
  return {
    type: 'object',
    required: ['code', 'detail', 'domain', ...(withIssues ? ['errors'] : [])],
    additionalProperties: false,
    properties: {
      code: { type: 'string', enum: codes },
      detail: { type: 'string' },
      domain: { type: 'string', const: 'import_process' },
      ...(withIssues ? { errors: NO_ISSUES } : {}),
    },
  };
}

/** The platform's NonFieldErrors with our `code` (one of `codes`) and, when there are issues, `errors`. */
function nonFieldErrors(codes: ErrorCode[], description: string) {
  return {
    type: 'object',
    description,
    required: ['non_field_errors', 'code'],
    additionalProperties: false,
    properties: {
      non_field_errors: { type: 'array', minItems: 1, items: { type: 'string' } },
      code: { type: 'string', enum: codes },
      errors: { type: 'array', minItems: 1, items: ref('Issue') },
    },
  };
}

const CHALLENGE_HEADER = { 'WWW-Authenticate': { description: 'Always `Token`.', schema: { type: 'string', const: 'Token' } } };
const ALLOW_HEADER = { Allow: { description: 'The methods the path supports (RFC 9110), e.g. `POST`, or `GET, HEAD`.', required: true, schema: { type: 'string' } } };
const RETRY_AFTER = { 'Retry-After': { description: 'Seconds to wait before the next call.', schema: { type: 'integer', minimum: 1 } } };

/** Responses every authenticated data-import operation may give (components.responses). */
export const COMMON_RESPONSES = {
  NotAuthenticated: json(errorSchema(codesOf('not_authenticated', 'authentication_failed')), 'Missing credentials (`not_authenticated`), or an invalid, tampered, expired or revoked token (`authentication_failed`).', CHALLENGE_HEADER),
  MethodNotAllowed: json(errorSchema(codesOf('method_not_allowed')), 'The path exists, not with this method (every path answers so; `OPTIONS` answers 200 with `Allow`).', ALLOW_HEADER),
  PayloadTooLarge: json(errorSchema(codesOf('payload_too_large')), 'The body is larger than the configured limit (BODY_LIMIT, default 10 MB), or parses to more values, deeper nesting or more members of one object than the JSON bounds allow (JSON_MAX_VALUES, JSON_MIN_BYTES_PER_VALUE, JSON_MAX_DEPTH, JSON_MAX_KEYS); checked before the body is parsed.'),
  UnsupportedMediaType: json(errorSchema(codesOf('unsupported_media_type')), 'The body is not application/json.'),
  Throttled: json(errorSchema(codesOf('throttled')), "The organisation's rate limit is used up (RATE_LIMIT_PER_MINUTE per API replica).", RETRY_AFTER),
  InternalError: json(errorSchema(codesOf('internal_error')), 'A bug of ours; the request id (X-Request-Id) finds it in the logs.'),
  Unavailable: json(errorSchema(codesOf('service_unavailable', 'request_timeout')), 'A dependency is unreachable, or the request took longer than REQUEST_TIMEOUT_MS.'),
};

/** The responses of COMMON_RESPONSES an operation gives: 413 and 415 only `withBody`. */
export const common = (withBody: boolean) => ({
  '401': { $ref: '#/components/responses/NotAuthenticated' },
  '405': { $ref: '#/components/responses/MethodNotAllowed' },
  ...(withBody ? { '413': { $ref: '#/components/responses/PayloadTooLarge' }, '415': { $ref: '#/components/responses/UnsupportedMediaType' } } : {}),
  '429': { $ref: '#/components/responses/Throttled' },
  '500': { $ref: '#/components/responses/InternalError' },
  '503': { $ref: '#/components/responses/Unavailable' },
});

/** The schemas of the error bodies (components.schemas), in the service's and the platform's shapes. */
export const ERROR_SCHEMAS = {
  Issue: {
    type: 'object',
    required: ['detail', 'code', 'attr'],
    additionalProperties: false,
    properties: {
      detail: { type: 'string' },
      code: { type: 'string', description: 'Stable; see docs/spec/RULES.md for the list of validation codes.' },
      attr: { type: 'string', description: 'Dot path to the input (`customers.0.landline`), or `non_field_errors`.' },
    },
  },
  ParseError: errorSchema(codesOf('parse_error', 'invalid'), 'Malformed JSON, a body that is not a JSON object, or no body (`parse_error`); a text value PostgreSQL cannot store, U+0000 (`invalid`).'),
  V2ParseError: {
    type: 'object',
    description: 'Malformed JSON, a body that is not a JSON object, or no body (`parse_error`); a text value PostgreSQL cannot store, U+0000 (`invalid`). With `errors`, empty, as every v2 400.',
    required: ['detail', 'code', 'errors'],
    additionalProperties: false,
    properties: { detail: { type: 'string', description: 'Human-readable; wording may change.' }, code: { type: 'string', enum: codesOf('parse_error', 'invalid') }, errors: NO_ISSUES },
  },
  NonFieldErrors: nonFieldErrors(
    codesOf('validation_error', 'parse_error', 'invalid', 'import_supplier_migration_not_ongoing'),
    "The platform's NonFieldErrors: `non_field_errors` lists one message per issue (`<attr>: <detail>`), or the error's detail; `code` is ours and stable; `errors` lists the issues when there are any.",
  ),
  V1AccountErrors: nonFieldErrors(
    codesOf('account_failed_validation', 'import_process_failed_validation', 'import_process_does_not_exist', 'import_supplier_migration_not_ongoing', 'validation_error', 'parse_error', 'invalid'),
    "The platform's DRFError, as the top-ups' NonFieldErrors: `non_field_errors` lists one message per issue (`<attr>: <detail>`), or the error's detail; `code` is ours and stable; `errors` lists the issues (codes of docs/spec/RULES.md) when there are any.",
  ),
  V1AlreadyImported: {
    type: 'object',
    description: "The platform's AccountAlreadyImportedResponse, with our `code`.",
    required: ['external_account_number', 'kraken_account_number', 'non_field_errors', 'code'],
    additionalProperties: false,
    properties: {
      external_account_number: { type: 'string', maxLength: 128 },
      kraken_account_number: { type: 'string', description: 'The platform account number of the imported account.' },
      non_field_errors: { type: 'array', minItems: 1, items: { type: 'string' } },
      code: { type: 'string', enum: codesOf('account_import_process_already_imported') },
    },
  },
  AccountValidationFailed: {
    type: 'object',
    required: ['detail', 'code', 'errors'],
    additionalProperties: false,
    properties: { detail: { type: 'string' }, code: { type: 'string', enum: codesOf('account_failed_validation') }, errors: { type: 'array', items: ref('Issue') } },
  },
  ImportProcessError: importProcessError(codesOf('import_process_failed_validation', 'import_supplier_migration_not_ongoing'), true),
  ImportProcessConflict: importProcessError(codesOf('import_process_in_progress'), false),
  AlreadyImported: {
    type: 'object',
    description: "The spec's body (`non_field_errors`, `account_id`) with the platform's `code`, `detail` and `errors` (empty) beside it.",
    required: ['non_field_errors', 'account_id', 'code', 'detail', 'errors'],
    additionalProperties: false,
    properties: {
      code: { type: 'string', enum: codesOf('account_import_process_already_imported') },
      detail: { type: 'string' },
      errors: NO_ISSUES,
      non_field_errors: {
        type: 'object',
        required: ['detail', 'code'],
        additionalProperties: false,
        properties: { detail: { type: 'string' }, code: { type: 'string', enum: codesOf('account_import_process_already_imported') } },
      },
      account_id: { type: 'string', description: 'The platform account number of the imported account.' },
    },
  },
  NotFound: errorSchema(codesOf('not_found')),
  PermissionDenied: errorSchema(codesOf('permission_denied')),
  QueryValidationFailed: {
    type: 'object',
    required: ['detail', 'code', 'errors'],
    additionalProperties: false,
    properties: { detail: { type: 'string' }, code: { type: 'string', enum: codesOf('validation_error') }, errors: { type: 'array', items: ref('Issue') } },
  },
};
