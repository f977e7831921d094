// long-file: the OpenAPI of the platform's operations in one place, as api/openapi.ts for the rest.
import { MAX_PAGE } from './listing/params';
import { PaymentInstructionRequestSchema, ProcessRequestSchema } from './accountImport/schemas';
import { TRANSFER_STATUSES } from './accountImport/transferStatus';
import { METER_POINT_STATUSES } from './meterPointStatuses/statuses';
import { HistoricalStatementsRequestSchema, NotesRequestSchema, TopUpNoteSchema, TopUpStatementSchema, TopUpTransactionSchema, TransactionsRequestSchema } from './topUps/schemas';

/** Plain JSON of a TypeBox schema (without its symbol keys). */
const plain = (schema: unknown) => JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
/**
 * A result item: the request item's schema with its status (and extra fields) added to it. Merged
 * rather than allOf, because the request item forbids additional properties and allOf would then
 * forbid the status too.
 */
const withStatus = (item: Record<string, unknown>, statuses: string[], extra: Record<string, unknown> = {}) => ({
  ...item,
  required: [...((item.required as string[] | undefined) ?? []), 'status'],
  properties: { ...(item.properties as Record<string, unknown>), status: { type: 'string', enum: statuses }, ...extra },
});

/** What api/openapi.ts lends the platform's operations, so both parts of the document agree. */
export interface OpenApiHelpers {
  ref(name: string): { $ref: string };
  json(schema: unknown, description: string, headers?: Record<string, unknown>): unknown;
  common(withBody: boolean): Record<string, unknown>;
  supplierParam(name: string): unknown;
  externalParam(name: string): unknown;
  security: unknown;
}

const WARNINGS = { type: 'array', items: { $ref: '#/components/schemas/Issue' }, description: 'As v2 validate\'s: things worth knowing that do not stop the import.' };

/** The answer of create-or-update and of process: the account's import, named, and the warnings of its validation. */
const accountOfImport = (description: string) => ({
  type: 'object',
  description,
  required: ['external_account_number', 'import_supplier_code', 'warnings'],
  additionalProperties: false,
  properties: { external_account_number: { type: 'string', maxLength: 128 }, import_supplier_code: { type: 'string', maxLength: 64 }, warnings: WARNINGS },
});

/**
 * Component schemas of the platform's operations (merged into components.schemas); `account` is
 * the Account's own component, which the validate-account answer extends with its warnings.
 */
export function platformSchemas(account: Record<string, unknown>) {
  return {
    ValidatedAccount: {
      ...account,
      description: "The platform's answer of validate-account, the validated data: the Account as this service stores it (phone numbers and postcodes normalised), and its `warnings` beside its fields.",
      required: [...((account.required as string[] | undefined) ?? []), 'warnings'],
      properties: { ...(account.properties as Record<string, unknown>), warnings: WARNINGS },
    },
    StagedAccount: accountOfImport("The platform's CreateOrUpdateAccountImportProcess, with the warnings."),
    ProcessRequest: plain(ProcessRequestSchema),
    ProcessStarted: accountOfImport(
      "The platform's ProcessAccountImportProcessCreation as this service answers it: the import is scheduled (a durable workflow creates the account, as after a v2 create), so there is no account number yet; the transfer status gives it once COMPLETED.",
    ),
    PaymentInstructionRequest: plain(PaymentInstructionRequestSchema),
    PaymentInstructionCreated: {
      type: 'object',
      description: "The platform's CreatePaymentInstructionResponse.",
      required: ['kraken_account_number', 'account_number', 'reference'],
      additionalProperties: false,
      properties: {
        kraken_account_number: { type: 'string', maxLength: 128, description: 'The platform account number of the account.' },
        account_number: { type: 'string', maxLength: 128, description: "The platform's copy of kraken_account_number." },
        reference: { type: 'string', maxLength: 128, description: 'The mandate reference stored (reference, or the deprecated instruction_reference).' },
      },
    },
    AccountTransferStatus: {
      type: 'object',
      description: "The platform's AccountTransferStatus, with the meter points' registration statuses beside it.",
      required: ['status', 'kraken_account_number', 'account_number', 'meter_points'],
      additionalProperties: false,
      properties: {
        status: {
          type: 'string',
          enum: [...TRANSFER_STATUSES],
          description:
            'COMPLETED: the account exists (PROCESSED). IN_PROGRESS: a run is under way (PENDING, IN_PROGRESS, dry runs too). UNKNOWN: no account and no run under way: staged and not processed, or the last run ended without an account (ERRORED, CANCELLED, a dry run).',
        },
        kraken_account_number: { type: 'string', description: 'The platform account number once COMPLETED; the empty string before.' },
        account_number: { type: 'string', deprecated: true, description: "The platform's deprecated copy of kraken_account_number." },
        meter_points: { type: 'array', items: { $ref: '#/components/schemas/MeterPointStatus' }, description: 'Each meter point of the account with its registration status (as meterpoint-statuses answers them); empty until COMPLETED.' },
      },
    },
    PlatformImportProcess: {
      type: 'object',
      description: "The platform's ImportProcess item.",
      required: ['external_account_number', 'kraken_account_number', 'account_created_at'],
      additionalProperties: false,
      properties: {
        external_account_number: { type: 'string', maxLength: 128 },
        kraken_account_number: { type: ['string', 'null'], description: 'The platform account number; null while pending.' },
        account_created_at: { type: ['string', 'null'], format: 'date-time', description: 'When the account was created; null while pending.' },
      },
    },
    MeterPointStatus: {
      type: 'object',
      required: ['mpxn', 'status'],
      additionalProperties: false,
      properties: {
        mpxn: { type: 'string', description: 'MPAN or MPRN.' },
        status: {
          type: 'string',
          enum: [...METER_POINT_STATUSES],
          description: 'The platform enumeration. Reached here: PRE_REGISTRATION (not marked), UNDERGOING_REGISTRATION (marked by send-registration-flows), REGISTRATION_REQUESTED (flow sent), REGISTRATION_ACCEPTED, REGISTRATION_REJECTED.',
        },
      },
    },
    TopUpTransactionsRequest: plain(TransactionsRequestSchema),
    TopUpTransactionsResult: {
      type: 'object',
      required: ['results'],
      properties: {
        results: {
          type: 'array',
          items: {
            type: 'object',
            required: ['status', 'transaction_data'],
            properties: {
              status: { type: 'string', enum: ['TRANSACTION_ADDED_TO_ACCOUNT', 'TRANSACTION_ALREADY_EXISTS', 'TRANSACTION_IMPORT_ERROR'] },
              transaction_data: plain(TopUpTransactionSchema),
              added_transaction_id: { type: 'integer', description: 'With TRANSACTION_ADDED_TO_ACCOUNT: the ledger entry id (as in billing.ledger.entry_posted).' },
              error_detail: { type: 'string', description: 'With TRANSACTION_IMPORT_ERROR.' },
            },
          },
        },
      },
    },
    TopUpNotesRequest: plain(NotesRequestSchema),
    TopUpNotesResult: { type: 'array', items: withStatus(plain(TopUpNoteSchema), ['NOTE_CREATION_SUCCESS', 'NOTE_ALREADY_EXISTS']) },
    TopUpStatementsRequest: plain(HistoricalStatementsRequestSchema),
    TopUpStatementsResult: {
      type: 'object',
      required: ['import_supplier', 'external_account_number', 'statements'],
      properties: {
        import_supplier: { type: 'string' },
        external_account_number: { type: 'string' },
        statements: {
          type: 'array',
          items: withStatus(plain(TopUpStatementSchema), ['STATEMENT_CREATION_SUCCESS', 'STATEMENT_ALREADY_EXISTS', 'STATEMENT_IMPORT_ERROR'], {
            error_code: { type: 'string', enum: ['historical_statement_already_exists'] },
            error_detail: { type: 'string' },
          }),
        },
      },
    },
    MeterPointStatusNotFound: {
      type: 'object',
      required: ['detail', 'code', 'error'],
      additionalProperties: false,
      properties: {
        detail: { type: 'string' },
        code: { type: 'string', enum: ['not_found'] },
        error: { type: 'string', description: "The platform's field; the same text as detail." },
      },
    },
  };
}

const LISTINGS = [
  ['all', 'listAllImportProcesses', 'Every import process of the supplier, pending or imported.'],
  ['pending', 'listPendingImportProcesses', 'Import processes without an account yet (every status but PROCESSED).'],
  ['imported', 'listImportedImportProcesses', 'Import processes whose account has been created (PROCESSED).'],
] as const;

/** The paths of the platform's operations (merged into paths). */
export function platformPaths(h: OpenApiHelpers): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const [listing, operationId, summary] of LISTINGS) {
    paths[`/v1/data-import/${listing}-account-import-processes/{import_supplier_code}/`] = {
      get: {
        operationId,
        tags: ['platform'],
        summary,
        description:
          'Without parameters: the complete listing as one JSON array, streamed in id order from a database cursor (bounded memory however long the book). With `limit`: one page, and `Link: <…>; rel="next"` when there is more; pass its `after` on.',
        security: h.security,
        parameters: [
          h.supplierParam('import_supplier_code'),
          { name: 'limit', in: 'query', required: false, description: `Page size, 1-${MAX_PAGE}.`, schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE } },
          { name: 'after', in: 'query', required: false, description: 'Opaque cursor from the previous page\'s Link header.', schema: { type: 'string' } },
        ],
        responses: {
          '200': h.json({ type: 'array', items: h.ref('PlatformImportProcess') }, 'The import processes, oldest first.', {
            Link: { description: 'With `limit`, when there is a next page: `<path?limit=n&after=cursor>; rel="next"`.', schema: { type: 'string' } },
          }),
          '400': h.json(h.ref('QueryValidationFailed'), 'A malformed or unknown query parameter (`validation_error`).'),
          '404': h.json(h.ref('NotFound'), 'No such import supplier, or the supplier is outside your grant.'),
          ...h.common(false),
        },
      },
    };
  }
  paths['/v1/data-import/meterpoint-statuses-for-account/{import_supplier_code}/{external_account_number}/'] = {
    get: {
      operationId: 'getMeterPointStatuses',
      tags: ['platform'],
      summary: 'Each MPAN and MPRN of an imported account with its industry status.',
      security: h.security,
      parameters: [h.supplierParam('import_supplier_code'), h.externalParam('external_account_number')],
      responses: {
        '200': h.json({ type: 'array', items: h.ref('MeterPointStatus') }, 'The meter points in payload order.'),
        '400': h.json(h.ref('QueryValidationFailed'), 'An unknown query parameter (`validation_error`).'),
        '404': h.json(h.ref('MeterPointStatusNotFound'), 'No imported account (unknown, only staged, or the supplier is outside your grant), or no meter points.'),
        ...h.common(false),
      },
    },
  };
  const topUp = (operationId: string, summary: string, request: string, result: string, extra: Record<string, unknown> = {}) => ({
    post: {
      operationId,
      tags: ['platform'],
      summary,
      security: h.security,
      requestBody: { required: true, content: { 'application/json': { schema: h.ref(request) } } },
      ...extra,
      responses: {
        '201': h.json(h.ref(result), 'Done in one transaction; each item with its status (a retry answers ALREADY_EXISTS).'),
        '400': h.json(
          h.ref('NonFieldErrors'),
          "In the platform's NonFieldErrors shape: every issue of the body (`validation_error`, codes of docs/spec/RULES.md and the platform: missing_transaction_id, duplicate_transaction_ids, note_body_or_document_path_not_found, note_unpin_at_earlier_than_creation_date, invalid_document_path, path_does_not_exist_in_file_store, start_date_later_than_end_date, …), an unreadable body (`parse_error`), or a supplier that is Paused or Complete (`import_supplier_migration_not_ongoing`).",
        ),
        '404': h.json(h.ref('NotFound'), 'No imported account (unknown, only staged, or the supplier is outside your grant).'),
        ...h.common(true),
      },
    },
  });
  paths['/v1/data-import/transactions/create/'] = topUp('createTransactions', 'Add ledger transactions to an imported account.', 'TopUpTransactionsRequest', 'TopUpTransactionsResult', {
    description:
      'Adds to the account\'s first ledger, moves its balance (credit-positive) and publishes billing.ledger.entry_posted v2 per added transaction, all in one transaction. `dry_run: true` answers 200 with the statuses and writes nothing.',
    parameters: [
      { name: 'check_previously_added', in: 'query', required: false, description: 'Default true: a transaction_id already on the account answers TRANSACTION_ALREADY_EXISTS; false: TRANSACTION_IMPORT_ERROR (ids stay unique).', schema: { type: 'boolean', default: true } },
      { name: 'force_add_to_current_statement', in: 'query', required: false, description: 'Default true: a date inside a closed statement period is moved to the day after the last statement closing date, with a pinned note; false: TRANSACTION_IMPORT_ERROR.', schema: { type: 'boolean', default: true } },
    ],
  });
  const accountErrors = (what: string) =>
    h.json(
      { oneOf: [h.ref('V1AccountErrors'), h.ref('V1AlreadyImported')] },
      `In the platform's shapes (its AccountAlreadyImportedResponse or DRFError): ${what}`,
    );
  const conflict = h.json(h.ref('ImportProcessConflict'), 'A run of this account is PENDING or IN_PROGRESS (`import_process_in_progress`).');
  const accountBody = { required: true, description: "The bare Account (the platform's EnergyAccount): an envelope's `payload` is an unknown field here.", content: { 'application/json': { schema: h.ref('Account') } } };
  paths['/v1/data-import/validate-account/'] = {
    post: {
      operationId: 'validateAccountV1',
      tags: ['platform'],
      summary: 'Validate an account under the rules of v2 validate; creates nothing.',
      security: h.security,
      requestBody: accountBody,
      responses: {
        '200': h.json(h.ref('ValidatedAccount'), 'Valid: the validated account, with its warnings.'),
        '400': accountErrors(
          'every error of the account (`account_failed_validation`, `errors` listing them; a supplier outside your grant is `import_supplier_not_found`), an unreadable body (`parse_error`), or an account already imported (`account_import_process_already_imported`).',
        ),
        ...h.common(true),
      },
    },
  };
  paths['/v1/data-import/account-import-process/create-or-update/'] = {
    post: {
      operationId: 'stageAccount',
      tags: ['platform'],
      summary: 'Stage an account: store and validate it without importing it; update it as often as wanted until it is processed.',
      description: 'Validated as a v2 create validates (the supplier must be Ongoing). Staged, the import answers STAGED on the v2 status operation and is listed as pending; no workflow runs until process.',
      security: h.security,
      requestBody: accountBody,
      responses: {
        '200': h.json(h.ref('StagedAccount'), 'Updated: the account had been staged (or imported without success) before.'),
        '201': h.json(h.ref('StagedAccount'), 'Staged for the first time.'),
        '400': accountErrors(
          'every error of the account (`account_failed_validation`), a supplier that is Paused or Complete (`import_supplier_migration_not_ongoing`), an unreadable body (`parse_error`), or an account already imported (`account_import_process_already_imported`).',
        ),
        '409': conflict,
        ...h.common(true),
      },
    },
  };
  paths['/v1/data-import/account-import-process/process/'] = {
    post: {
      operationId: 'processStagedAccount',
      tags: ['platform'],
      summary: 'Process staged account data: validate it again and start its import, exactly as a v2 create does.',
      description:
        'The staged data (or the data of a run that ended without an account) is validated again with today\'s rules and reference data, stored as a new PENDING run and its durable workflow started; follow it with the transfer status or the v2 status operation.',
      security: h.security,
      requestBody: { required: true, content: { 'application/json': { schema: h.ref('ProcessRequest') } } },
      responses: {
        '201': h.json(h.ref('ProcessStarted'), 'Scheduled.'),
        '400': accountErrors(
          'a body of the wrong shape (`validation_error`), no staged account for the supplier and number (`import_process_does_not_exist`; a supplier outside your grant too), staged data that fails validation now (`import_process_failed_validation`, `errors` listing the issues), a supplier that is Paused or Complete (`import_supplier_migration_not_ongoing`), an unreadable body (`parse_error`), or an account already imported (`account_import_process_already_imported`).',
        ),
        '409': conflict,
        ...h.common(true),
      },
    },
  };
  paths['/v1/data-import/account-transfer-status/{import_supplier_code}/{external_account_number}/'] = {
    get: {
      operationId: 'getAccountTransferStatus',
      tags: ['platform'],
      summary: 'The transfer status of an account import: whether its account exists, and its meter points\' registration statuses.',
      security: h.security,
      parameters: [h.supplierParam('import_supplier_code'), h.externalParam('external_account_number')],
      responses: {
        '200': h.json(h.ref('AccountTransferStatus'), 'The import process exists (staged, under way, ended, or imported).'),
        '400': h.json(h.ref('QueryValidationFailed'), 'An unknown query parameter (`validation_error`).'),
        '404': h.json(h.ref('NotFound'), 'No import process for the supplier and number, or the supplier is outside your grant.'),
        ...h.common(false),
      },
    },
  };
  paths['/v1/data-import/payment-instruction/create/'] = {
    post: {
      operationId: 'createPaymentInstruction',
      tags: ['platform'],
      summary: "Add a payment instruction (a Direct Debit mandate, a card…) to an imported account.",
      description:
        "Stored with the account (it reads back as the Account's `payment_instructions` and is covered by its digest). An account has at most one active instruction, and every stored one is active; sending the same instruction again answers 201 as the first time. A DIRECT_DEBIT instruction may carry the bank account's `sort_code` and `bank_account_number` (this service's addition), format- and modulus-checked. No event is published: the events catalogue has none for a payment instruction.",
      security: h.security,
      requestBody: { required: true, content: { 'application/json': { schema: h.ref('PaymentInstructionRequest') } } },
      responses: {
        '201': h.json(h.ref('PaymentInstructionCreated'), 'Stored (or the same instruction was stored before).'),
        '400': h.json(
          h.ref('PaymentInstructionError'),
          "In the platform's CreatePaymentInstructionError shape: a body of the wrong shape (`validation_error`, `errors` listing the issues: codes of docs/spec/RULES.md and mutually_exclusive_field_required, invalid_sort_code, invalid_bank_account_number, bank_details_incomplete, bank_details_not_direct_debit, bank_details_failed_modulus_check), an unreadable body (`parse_error`), no import for the supplier and number (`import_process_does_not_exist`; a supplier outside your grant too), an import without its account yet (`account_not_found`), a supplier that is Paused or Complete (`import_supplier_migration_not_ongoing`), or another active instruction (`account_has_active_instruction`).",
        ),
        ...h.common(true),
      },
    },
  };
  paths['/v1/data-import/notes/create/'] = topUp('createNotes', 'Add notes to an imported account.', 'TopUpNotesRequest', 'TopUpNotesResult');
  paths['/v1/data-import/historical-statements/create/'] = topUp('createHistoricalStatements', 'Add historical statements to an imported account.', 'TopUpStatementsRequest', 'TopUpStatementsResult');
  return paths;
}
