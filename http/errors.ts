/**
 * Every error the API answers is an HttpError, rendered by one middleware (http/middleware/errors.ts).
 * `code` values are a contract with integrators: stable, listed here, documented in the OpenAPI
 * document; `detail` wording is free.
 */
export const ERROR_CODES = {
  parse_error: 400,
  invalid: 400,
  account_failed_validation: 400,
  import_process_failed_validation: 400,
  account_import_process_already_imported: 400,
  import_process_does_not_exist: 400,
  import_supplier_migration_not_ongoing: 400,
  validation_error: 400,
  account_not_found: 400,
  account_has_active_instruction: 400,
  not_authenticated: 401,
  authentication_failed: 401,
  not_found: 404,
  method_not_allowed: 405,
  import_process_in_progress: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  throttled: 429,
  internal_error: 500,
  service_unavailable: 503,
  request_timeout: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export class HttpError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.status = ERROR_CODES[code];
  }

  /** The response body; a subclass with a body of another shape overrides it. */
  body(): unknown {
    return { detail: this.detail, code: this.code, ...this.extra };
  }
}

export const notFound = (detail = 'Not found.') => new HttpError('not_found', detail);

/** 400 of the validate operation: every issue of the payload. */
export class AccountValidationError extends HttpError {
  constructor(readonly errors: { detail: string; code: string; attr: string }[]) {
    super('account_failed_validation', 'The account payload failed validation.', { errors });
  }
}

/** Import-process errors carry `domain` (spec: "code, detail and domain"). */
export class ImportProcessError extends HttpError {
  constructor(code: ErrorCode, detail: string, headers: Record<string, string> = {}) {
    super(code, detail, { domain: 'import_process' }, headers);
  }
  override body() {
    return { code: this.code, detail: this.detail, domain: 'import_process' };
  }
}

/**
 * The spec's own shape for a second create of an imported account. The external account number
 * is for the platform's v1 shape of the same refusal (http/middleware/errorShape.ts v1AccountErrorBody).
 */
export class AlreadyImportedError extends HttpError {
  constructor(
    readonly accountId: string,
    readonly externalAccountNumber = '',
  ) {
    super('account_import_process_already_imported', 'This account has already been imported.');
  }
  override body() {
    return {
      non_field_errors: { detail: this.detail, code: this.code },
      account_id: this.accountId,
    };
  }
}

/** A body of any shape with a given status (the registration 404 is an array). */
export class RawBodyError extends HttpError {
  constructor(
    code: ErrorCode,
    private readonly raw: unknown,
  ) {
    super(code, 'see body');
  }
  override body() {
    return this.raw;
  }
}

/**
 * An error answered in the body shape of the operation it happened in (http/middleware/errorShape.ts):
 * the status, code, detail and headers of the original, another body.
 */
export class ShapedError extends HttpError {
  constructor(
    readonly original: HttpError,
    private readonly shaped: unknown,
  ) {
    super(original.code, original.detail, original.extra, original.headers);
  }
  override body() {
    return this.shaped;
  }
}
