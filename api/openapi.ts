// long-file: the whole OpenAPI document in one place, built from the schema data.
// Over 300 lines on purpose: the whole OpenAPI document in one place, built from the schema data;
// the platform's operations add theirs from platform/openapi.ts.
import { AccountSchema, REFERENCED_SCHEMAS } from '../account/schema';
import { EnvelopeSchema } from '../account/taskParams';
import { IMPORT_STATUSES } from '../imports/store';
import type { ErrorCode } from '../http/errors';
import { GRAPHQL_BODY_LIMIT_BYTES } from './routes/graphql';
import { MAX_STATUS_NUMBERS, StatusesRequestSchema } from './routes/imports';
import { MAX_DIGEST_NUMBERS, TotalsRequestSchema } from './routes/reconcile';
import { TOKEN_ERRORS } from '../auth/tokens';
import { platformPaths, platformSchemas } from '../platform/openapi';

/**
 * The OpenAPI 3.1 document of the REST API and the GraphQL token endpoint, built from the same
 * schema data the validator compiles (account/schema.ts, account/taskParams.ts) and the one list
 * of error codes (http/errors.ts), so the document cannot drift from the code.
 *
 * Every sub-schema that carries an `$id` (`https://schemas.data-import/account/<Name>.json`)
 * becomes `#/components/schemas/<Name>` and is referenced from where it was nested: tools that do
 * not resolve `$id` URIs still find every schema.
 */

const ID = /^https:\/\/schemas\.data-import\/account\/([A-Za-z0-9]+)\.json$/;
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** A JSON copy without TypeBox's symbol keys, with nested `$id` schemas hoisted into `into`. */
function hoist(schema: unknown, into: Record<string, unknown>): unknown {
  if (Array.isArray(schema)) return schema.map((s) => hoist(s, into));
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema as Record<string, unknown>)) {
    if (k === '$id') continue;
    if (k === '$ref' && typeof v === 'string' && ID.test(v)) {
      out.$ref = ref(ID.exec(v)![1]!).$ref;
      continue;
    }
    // `metadata[].value` is free-form: its keys are data, not schema keywords.
    out[k] = k === 'properties' || k === '$defs' ? mapValues(v as Record<string, unknown>, (x) => hoist(x, into)) : hoist(v, into);
  }
  const id = (schema as { $id?: unknown }).$id;
  if (typeof id === 'string' && ID.test(id)) {
    const name = ID.exec(id)![1]!;
    into[name] = out;
    return ref(name);
  }
  return out;
}

function mapValues(o: Record<string, unknown>, f: (v: unknown) => unknown): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, f(v)]));
}

/** Codes answered with one status: a typed list, checked against ERROR_CODES. */
function codesOf(...codes: ErrorCode[]): ErrorCode[] {
  return codes;
}

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

function json(schema: unknown, description: string, headers?: Record<string, unknown>) {
  return { description, ...(headers ? { headers } : {}), content: { 'application/json': { schema } } };
}

/** GraphQL over HTTP answers in the media type the client accepts: application/graphql-response+json when asked for, else application/json. */
function graphqlJson(description: string) {
  const media = { schema: ref('GraphQLResponse') };
  return { description, content: { 'application/graphql-response+json': media, 'application/json': media } };
}

const CHALLENGE_HEADER = { 'WWW-Authenticate': { description: 'Always `Token`.', schema: { type: 'string', const: 'Token' } } };
const ALLOW_HEADER = { Allow: { description: 'The methods the path supports (RFC 9110), e.g. `POST`, or `GET, HEAD`.', required: true, schema: { type: 'string' } } };
const RETRY_AFTER = { 'Retry-After': { description: 'Seconds to wait before the next call.', schema: { type: 'integer', minimum: 1 } } };

/** Responses every authenticated data-import operation may give. */
const COMMON_RESPONSES = {
  NotAuthenticated: json(errorSchema(codesOf('not_authenticated', 'authentication_failed')), 'Missing credentials (`not_authenticated`), or an invalid, tampered, expired or revoked token (`authentication_failed`).', CHALLENGE_HEADER),
  MethodNotAllowed: json(errorSchema(codesOf('method_not_allowed')), 'The path exists, not with this method (every path answers so; `OPTIONS` answers 200 with `Allow`).', ALLOW_HEADER),
  PayloadTooLarge: json(errorSchema(codesOf('payload_too_large')), 'The body is larger than the configured limit (BODY_LIMIT, default 10 MB).'),
  UnsupportedMediaType: json(errorSchema(codesOf('unsupported_media_type')), 'The body is not application/json.'),
  Throttled: json(errorSchema(codesOf('throttled')), "The organisation's rate limit is used up (RATE_LIMIT_PER_MINUTE per API replica).", RETRY_AFTER),
  InternalError: json(errorSchema(codesOf('internal_error')), 'A bug of ours; the request id (X-Request-Id) finds it in the logs.'),
  Unavailable: json(errorSchema(codesOf('service_unavailable', 'request_timeout')), 'A dependency is unreachable, or the request took longer than REQUEST_TIMEOUT_MS.'),
};
const common = (withBody: boolean) => ({
  '401': { $ref: '#/components/responses/NotAuthenticated' },
  '405': { $ref: '#/components/responses/MethodNotAllowed' },
  ...(withBody ? { '413': { $ref: '#/components/responses/PayloadTooLarge' }, '415': { $ref: '#/components/responses/UnsupportedMediaType' } } : {}),
  '429': { $ref: '#/components/responses/Throttled' },
  '500': { $ref: '#/components/responses/InternalError' },
  '503': { $ref: '#/components/responses/Unavailable' },
});

const ISSUE = {
  type: 'object',
  required: ['detail', 'code', 'attr'],
  additionalProperties: false,
  properties: {
    detail: { type: 'string' },
    code: { type: 'string', description: 'Stable; see docs/spec/RULES.md for the list of validation codes.' },
    attr: { type: 'string', description: 'Dot path to the input (`customers.0.landline`), or `non_field_errors`.' },
  },
};

/** The record of the status operation (imports/store.ts toApiRecord). */
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

function responseSchemas() {
  return {
    Issue: ISSUE,
    Warnings: { type: 'object', required: ['warnings'], additionalProperties: false, properties: { warnings: { type: 'array', items: ref('Issue') } } },
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
    PaymentInstructionError: {
      type: 'object',
      description:
        "The platform's CreatePaymentInstructionError, with our `code` and, when there are issues, `errors`. `external_account_number`, `import_supplier` and `reference` repeat the request's (the empty string where it gave none usable: an unreadable body, a missing or over-long value).",
      required: ['error_detail', 'external_account_number', 'import_supplier', 'reference', 'code'],
      additionalProperties: false,
      properties: {
        error_detail: { type: 'string', description: 'What failed (with each issue when there are any); wording may change.' },
        external_account_number: { type: 'string', maxLength: 128 },
        import_supplier: { type: 'string', maxLength: 64 },
        reference: { type: 'string', maxLength: 128 },
        code: {
          type: 'string',
          enum: codesOf('validation_error', 'parse_error', 'invalid', 'import_process_does_not_exist', 'account_not_found', 'import_supplier_migration_not_ongoing', 'account_has_active_instruction'),
        },
        errors: { type: 'array', minItems: 1, items: ref('Issue') },
      },
    },
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
    ProcessError: {
      type: ['object', 'null'],
      required: ['code', 'detail', 'domain'],
      properties: { code: { type: 'string' }, detail: { type: 'string' }, domain: { type: 'string' } },
    },
    ImportProcess: IMPORT_PROCESS,
    ImportProcessOfAccount: {
      ...IMPORT_PROCESS,
      description: 'The record of the status operation, with the account it is of.',
      required: ['external_account_number', ...IMPORT_PROCESS.required],
      properties: { external_account_number: { type: 'string', maxLength: 128 }, ...IMPORT_PROCESS.properties },
    },
    ImportStatusesRequest: JSON.parse(JSON.stringify(StatusesRequestSchema)) as unknown,
    ImportStatuses: {
      type: 'object',
      required: ['results', 'not_found'],
      additionalProperties: false,
      properties: {
        results: { type: 'array', maxItems: MAX_STATUS_NUMBERS, description: 'One record per requested number with an import process, in the order of the request.', items: ref('ImportProcessOfAccount') },
        not_found: { type: 'array', maxItems: MAX_STATUS_NUMBERS, description: 'The requested numbers with no import process (all of them for a supplier outside your grant), each once.', items: { type: 'string' } },
      },
    },
    AccountDigestOfAccount: {
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
    },
    AccountDigests: {
      type: 'object',
      required: ['results', 'not_found'],
      additionalProperties: false,
      properties: {
        results: { type: 'array', maxItems: MAX_DIGEST_NUMBERS, description: 'One record per requested number with an import process, in the order of the request.', items: ref('AccountDigestOfAccount') },
        not_found: { type: 'array', maxItems: MAX_DIGEST_NUMBERS, description: 'The requested numbers with no import process (all of them for a supplier outside your grant), each once.', items: { type: 'string' } },
      },
    },
    SupplierTotalsRequest: JSON.parse(JSON.stringify(TotalsRequestSchema)) as unknown,
    SupplierTotals: {
      type: 'object',
      required: ['import_supplier', 'accounts', 'customers', 'meter_points', 'meters', 'registers', 'ledger_balances', 'debts'],
      additionalProperties: false,
      properties: {
        import_supplier: { type: 'string', maxLength: 64 },
        accounts: { type: 'integer', minimum: 0, description: 'Accounts imported for the supplier (an account whose import is PROCESSED).' },
        customers: { type: 'integer', minimum: 0, description: 'Their customers.' },
        meter_points: { type: 'integer', minimum: 0, description: 'Their meter points (of every supply address).' },
        meters: { type: 'integer', minimum: 0 },
        registers: { type: 'integer', minimum: 0 },
        ledger_balances: { type: 'string', pattern: '^-?\\d+(\\.\\d+)?$', description: 'The sum of `ledgers[].ledger_balance`, exact, as a decimal string.' },
        debts: { type: 'string', pattern: '^-?\\d+(\\.\\d+)?$', description: 'The sum of `debts[].aged_debt[].debt_amount`, exact, as a decimal string.' },
      },
    },
    QueryValidationFailed: {
      type: 'object',
      required: ['detail', 'code', 'errors'],
      additionalProperties: false,
      properties: { detail: { type: 'string' }, code: { type: 'string', enum: codesOf('validation_error') }, errors: { type: 'array', items: ref('Issue') } },
    },
    RegistrationResult: {
      type: 'object',
      required: ['import_supplier_code', 'external_account_number', 'meter_points'],
      properties: {
        import_supplier_code: { type: 'string' },
        external_account_number: { type: 'string' },
        meter_points: {
          type: 'array',
          items: {
            type: 'object',
            required: ['mpxn', 'status'],
            properties: {
              mpxn: { type: 'string', description: 'Meter point number (MPAN or MPRN).' },
              status: { type: 'string', enum: ['REGISTRATION_FLOW_SUCCESS', 'REGISTRATION_FLOW_ERROR'] },
              error_detail: { type: 'string', description: 'Present when status is REGISTRATION_FLOW_ERROR.' },
            },
          },
        },
      },
    },
    RegistrationNotFound: {
      type: 'object',
      required: ['error_detail', 'import_supplier_code', 'external_account_number'],
      properties: { error_detail: { type: 'string' }, import_supplier_code: { type: 'string' }, external_account_number: { type: 'string' } },
    },
    GraphQLRequest: {
      type: 'object',
      required: ['query'],
      properties: { query: { type: 'string' }, variables: { type: ['object', 'null'] }, operationName: { type: ['string', 'null'] } },
    },
    GraphQLResponse: {
      type: 'object',
      properties: {
        data: { type: ['object', 'null'], description: '`obtainKrakenToken`: `{token, refreshToken, refreshExpiresIn, payload}`.' },
        errors: {
          type: 'array',
          items: {
            type: 'object',
            required: ['message'],
            properties: {
              message: { type: 'string' },
              extensions: {
                type: 'object',
                properties: {
                  errorCode: { type: 'string', enum: [...Object.keys(TOKEN_ERRORS), 'internal_error'] },
                  errorType: { type: 'string' },
                  errorDescription: { type: 'string' },
                },
              },
            },
          },
        },
      },
    },
  };
}

const supplierParam = (name: string) => ({ name, in: 'path', required: true, description: 'Import supplier code.', schema: { type: 'string', maxLength: 64 } });
const externalParam = (name: string) => ({ name, in: 'path', required: true, description: "The caller's account identifier.", schema: { type: 'string', maxLength: 128 } });
const security = [{ Token: [] }];
const accountBody = {
  required: true,
  description: 'An Account, or the envelope `{payload: Account, task_params}` (an Account has no field `payload`, so the two never collide).',
  content: { 'application/json': { schema: { oneOf: [ref('Account'), ref('Envelope')] } } },
};

export function buildOpenApiDocument(): Record<string, unknown> {
  const schemas: Record<string, unknown> = {};
  for (const s of REFERENCED_SCHEMAS) hoist(s, schemas);
  hoist(AccountSchema, schemas);
  hoist(EnvelopeSchema, schemas);
  // The envelope's payload is validated as an Account (separately, to keep Account-relative attrs).
  const envelope = schemas.Envelope as { properties: Record<string, unknown> };
  envelope.properties.payload = ref('Account');
  Object.assign(schemas, responseSchemas(), platformSchemas(schemas.Account as Record<string, unknown>));

  return {
    openapi: '3.1.0',
    info: {
      title: 'Account data-import API',
      version: '1.0.0',
      description:
        'Validate, import and follow account imports; send registration flows. Authenticate with a token from `POST /v1/graphql/` (`obtainKrakenToken`) sent as `Authorization: Token <token>`; see docs/authentication.md.',
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    servers: [{ url: '/' }],
    tags: [{ name: 'accounts' }, { name: 'registrations' }, { name: 'platform' }, { name: 'authentication' }, { name: 'operations' }],
    paths: {
      '/v2/data-import/accounts/validate/': {
        post: {
          operationId: 'validateAccount',
          tags: ['accounts'],
          summary: 'Validate an account; creates nothing.',
          security,
          requestBody: accountBody,
          responses: {
            '200': json(ref('Warnings'), 'Valid; the warnings do not stop an import.'),
            '400': json({ oneOf: [ref('AccountValidationFailed'), ref('V2ParseError')] }, 'Every error of the payload (`account_failed_validation`), or an unreadable body (`parse_error`, `errors` empty). A supplier outside your grant is reported as `import_supplier_not_found`.'),
            ...common(true),
          },
        },
      },
      '/v2/data-import/accounts/': {
        post: {
          operationId: 'createAccount',
          tags: ['accounts'],
          summary: 'Validate, then schedule the import of an account.',
          security,
          requestBody: accountBody,
          responses: {
            '201': json(ref('Warnings'), 'Scheduled; follow it with the status operation.'),
            '400': json({ oneOf: [ref('ImportProcessError'), ref('AlreadyImported'), ref('V2ParseError')] }, 'Invalid (`import_process_failed_validation`: run validate for the details), supplier not accepting migrations (`import_supplier_migration_not_ongoing`), already imported (`account_import_process_already_imported`), or an unreadable body; each with `code`, `detail` and `errors` (empty), as the platform\'s v2 400.'),
            '409': json(ref('ImportProcessConflict'), 'An import of this account is PENDING or IN_PROGRESS (`import_process_in_progress`).'),
            ...common(true),
          },
        },
      },
      '/v2/data-import/accounts/{import_supplier_code}/{external_account_number}/': {
        get: {
          operationId: 'getImportStatus',
          tags: ['accounts'],
          summary: 'The import process of an account.',
          security,
          parameters: [supplierParam('import_supplier_code'), externalParam('external_account_number')],
          responses: {
            '200': json(ref('ImportProcess'), 'The import process record.'),
            '404': json(ref('NotFound'), 'No such import process, or the supplier is outside your grant.'),
            ...common(false),
          },
        },
      },
      '/v2/data-import/accounts/statuses/': {
        post: {
          operationId: 'getImportStatuses',
          tags: ['accounts'],
          summary: `The import processes of up to ${MAX_STATUS_NUMBERS} accounts of one supplier in one request.`,
          description:
            'Each requested number with an import process answers the record of the status operation plus `external_account_number`; the others are listed in `not_found` (a number with U+0000 too: no import process can have it). Each number is answered once, in the order of the request. A supplier outside your grant answers as one with no import processes: every number in `not_found`.',
          security,
          requestBody: { required: true, content: { 'application/json': { schema: ref('ImportStatusesRequest') } } },
          responses: {
            '200': json(ref('ImportStatuses'), 'The records found, and the numbers without an import process.'),
            '400': json({ oneOf: [ref('QueryValidationFailed'), ref('V2ParseError')] }, `A body of the wrong shape (\`validation_error\` with every issue: \`unknown_field\`, \`required\`, \`invalid\` for a wrong type or no number, \`blank\`, \`max_length\` for more than ${MAX_STATUS_NUMBERS} numbers or a value too long), or an unreadable body (\`parse_error\`).`),
            ...common(true),
          },
        },
      },
      '/v2/data-import/accounts/{import_supplier_code}/{external_account_number}/account/': {
        get: {
          operationId: 'getImportedAccount',
          tags: ['accounts'],
          summary: 'The imported account as stored, read back from the account tables, in the shape of the create body.',
          description:
            'Not the payload that was sent (retention drops it): the account the tables hold. Fields without data are absent (an empty optional array reads back as absent, as does null); phone numbers, postcodes and date-times are in the form the service stores them (docs/bulk-migration.md, "The canonical form"). Its canonical form digests to the `digest` of the bulk digest operation.',
          security,
          parameters: [supplierParam('import_supplier_code'), externalParam('external_account_number')],
          responses: {
            '200': json(ref('Account'), 'The account as stored.'),
            '404': json(ref('NotFound'), 'No imported account (never imported, not PROCESSED), or the supplier is outside your grant.'),
            ...common(false),
          },
        },
      },
      '/v2/data-import/accounts/digests/': {
        post: {
          operationId: 'getAccountDigests',
          tags: ['accounts'],
          summary: `The import status and the digest of the account as stored, for up to ${MAX_DIGEST_NUMBERS} accounts of one supplier in one request.`,
          description:
            'Each requested number with an import process answers the record of the status operation plus `external_account_number` and `digest` (null when no account exists); the others are listed in `not_found` (a number with U+0000 too). Each number is answered once, in the order of the request. A supplier outside your grant answers as one with no import processes: every number in `not_found`. `data-import reconcile` compares the digests with those of the book. The digest is the one stored with the account, computed from its rows by the workers after it was created and forgotten whenever any of its rows changes, else computed from the rows now (docs/bulk-migration.md, "Stored digests").',
          security,
          requestBody: { required: true, content: { 'application/json': { schema: ref('ImportStatusesRequest') } } },
          responses: {
            '200': json(ref('AccountDigests'), 'The records found, with their digests, and the numbers without an import process.'),
            '400': json({ oneOf: [ref('QueryValidationFailed'), ref('V2ParseError')] }, `A body of the wrong shape (\`validation_error\` with every issue: \`unknown_field\`, \`required\`, \`invalid\` for a wrong type or no number, \`blank\`, \`max_length\` for more than ${MAX_DIGEST_NUMBERS} numbers or a value too long), or an unreadable body (\`parse_error\`).`),
            ...common(true),
          },
        },
      },
      '/v2/data-import/accounts/totals/': {
        post: {
          operationId: 'getSupplierTotals',
          tags: ['accounts'],
          summary: 'The totals of every account imported for one supplier: accounts, customers, meter points, meters, registers, ledger balances and debts summed.',
          description:
            'Counted by the database in one request, over every account whose import is PROCESSED: `data-import reconcile` compares them with the totals of a whole book, and knows from them what the supplier holds outside a tranche without asking about each account (docs/bulk-migration.md, "Tranches"). Sums are exact decimal strings. A supplier outside your grant answers as one with no accounts: every total 0.',
          security,
          requestBody: { required: true, content: { 'application/json': { schema: ref('SupplierTotalsRequest') } } },
          responses: {
            '200': json(ref('SupplierTotals'), 'The totals of the supplier\'s imported accounts.'),
            '400': json({ oneOf: [ref('QueryValidationFailed'), ref('V2ParseError')] }, 'A body of the wrong shape (`validation_error` with every issue: `unknown_field`, `required`, `invalid` for a wrong type, `blank`, `max_length` for a supplier code too long), or an unreadable body (`parse_error`).'),
            ...common(true),
          },
        },
      },
      '/v1/data-import/send-registration-flows/{import_supplier_code}/{external_account_number}/': {
        post: {
          operationId: 'sendRegistrationFlows',
          tags: ['registrations'],
          summary: 'Mark the meter points of an imported account for registration with the industry.',
          security,
          parameters: [
            supplierParam('import_supplier_code'),
            externalParam('external_account_number'),
            { name: 'supply_start_date', in: 'query', required: false, description: 'Supply start date of the flows; default the earliest valid date.', schema: { type: 'string', format: 'date' } },
          ],
          responses: {
            '200': json({ type: 'array', items: ref('RegistrationResult') }, 'One record per account; a later downstream failure is still possible.'),
            '400': json(ref('QueryValidationFailed'), 'A malformed query parameter (`validation_error`).'),
            '404': json({ type: 'array', items: ref('RegistrationNotFound') }, 'No imported account, no meter points to register, or the supplier is outside your grant.'),
            ...common(false),
          },
        },
      },
      ...platformPaths({ ref, json, common, supplierParam, externalParam, security }),
      '/v1/graphql/': {
        post: {
          operationId: 'graphql',
          tags: ['authentication'],
          summary: 'GraphQL: `mutation { obtainKrakenToken(input: {APIKey: "..."}) { token refreshToken refreshExpiresIn payload } }`; also `input: {refreshToken: "..."}`.',
          description: `Failures are GraphQL errors with extensions.errorCode: ${Object.entries(TOKEN_ERRORS).map(([c, d]) => `${c} (${d})`).join(', ')}. Bodies over ${GRAPHQL_BODY_LIMIT_BYTES} bytes answer 413. Rate limited per client address and per API key or refresh token (AUTH_TOKEN_RATE_LIMIT_PER_MINUTE, default 60, burst 30, per replica): 429 throttled with Retry-After.`,
          security: [],
          requestBody: { required: true, content: { 'application/json': { schema: ref('GraphQLRequest') } } },
          responses: {
            '200': graphqlJson('Executed; failures of the mutation are in `errors`.'),
            '400': graphqlJson('Malformed JSON, no query; with Accept: application/graphql-response+json also a query that does not parse or validate (with application/json those answer 200 with errors).'),
            '406': json(ref('GraphQLResponse'), 'The Accept header admits neither application/graphql-response+json nor application/json.'),
            '413': { $ref: '#/components/responses/PayloadTooLarge' },
            '415': json(ref('GraphQLResponse'), 'The body is not application/json.'),
            '429': { $ref: '#/components/responses/Throttled' },
          },
        },
      },
      '/healthz': {
        get: { operationId: 'liveness', tags: ['operations'], security: [], responses: { '200': json({ type: 'object', properties: { status: { const: 'ok' } } }, 'The process is alive.') } },
      },
      '/readyz': {
        get: {
          operationId: 'readiness',
          tags: ['operations'],
          security: [],
          responses: {
            '200': json({ type: 'object', properties: { status: { const: 'ready' }, checks: { type: 'object' } } }, 'Every dependency answers.'),
            '503': json({ type: 'object', properties: { status: { const: 'unavailable' }, code: { type: 'string', enum: codesOf('service_unavailable') }, detail: { type: 'string' }, checks: { type: 'object' } } }, 'A dependency does not answer.'),
          },
        },
      },
      '/metrics': {
        get: {
          operationId: 'metrics',
          tags: ['operations'],
          security: [],
          description:
            'Prometheus text format: HTTP requests and latencies, imports by status (`data_import_imports{status}`), the outbox backlog, customer e-mails by delivery state (`data_import_customer_emails{status}`: QUEUED, SENT, BOUNCED, FAILED, SKIPPED; docs/customer-emails.md).',
          responses: {
            '200': { description: 'Prometheus metrics.', content: { 'text/plain': { schema: { type: 'string' } } } },
            '401': { $ref: '#/components/responses/NotAuthenticated' },
          } },
      },
      '/openapi.json': {
        get: { operationId: 'openApiDocument', tags: ['operations'], security: [], responses: { '200': json({ type: 'object' }, 'This document.') } },
      },
      '/asyncapi.json': {
        get: { operationId: 'asyncApiDocument', tags: ['operations'], security: [], responses: { '200': json({ type: 'object' }, 'The AsyncAPI 3.0 document of the events.') } },
      },
    },
    components: {
      schemas,
      responses: COMMON_RESPONSES,
      securitySchemes: {
        Token: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: '`Token <token>` (also `JWT <token>` or the bare token), the token from obtainKrakenToken.',
        },
      },
    },
  };
}
