/**
 * The refusals of the service's features (imports, staging, top-ups, payment instructions): a
 * stable `code`, a `detail` whose wording may change, and what the refusal carries (the issues of a
 * validation, the import it is about). No HTTP status: the API's one error middleware
 * (http/middleware/errors.ts) gives each code its status and documented body; a CLI or a worker
 * reads the code.
 */
export type DomainErrorCode =
  | 'validation_error'
  | 'account_failed_validation'
  | 'import_process_failed_validation'
  | 'import_supplier_migration_not_ongoing'
  | 'import_process_does_not_exist'
  | 'import_process_in_progress'
  | 'account_import_process_already_imported'
  | 'account_not_found'
  | 'account_has_active_instruction'
  | 'not_found';

/** One issue of a validation: `{detail, code, attr}` (account/issues.ts). */
export interface DomainIssue {
  detail: string;
  code: string;
  attr: string;
}

export interface DomainErrorOptions {
  /** The issues found, each with its own code (docs/spec/RULES.md). */
  issues?: DomainIssue[];
  /** The spec's import-process errors name their domain (`code, detail and domain`). */
  domain?: 'import_process';
}

export class DomainError extends Error {
  constructor(
    readonly code: DomainErrorCode,
    readonly detail: string,
    readonly options: DomainErrorOptions = {},
  ) {
    super(detail);
    this.name = 'DomainError';
  }
}

/** The account of this import exists already (PROCESSED): its platform account number, and the caller's. */
export class AlreadyImportedError extends DomainError {
  constructor(
    readonly accountId: string,
    readonly externalAccountNumber = '',
  ) {
    super('account_import_process_already_imported', 'This account has already been imported.');
    this.name = 'AlreadyImportedError';
  }
}
