import { AlreadyImportedError, type DomainError } from '../lib/errors';

/**
 * Every error the API answers is an HttpError, or a feature's DomainError (lib/errors.ts) made one
 * by httpErrorOf, rendered by one middleware (http/middleware/errors.ts).
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
  graphql_document_too_costly: 400,
  graphql_too_many_token_operations: 400,
  not_authenticated: 401,
  authentication_failed: 401,
  permission_denied: 403,
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

export interface HttpErrorOptions {
  /** A body of another shape than `{detail, code, ...extra}` (the registration 404 is an array). */
  body?: unknown;
  /** The feature's refusal this error answers (lib/errors.ts), for the error shapes that need more of it. */
  domainError?: DomainError;
}

/** The one error class of the HTTP layer: a code of ERROR_CODES (which gives the status), a detail, and what the body adds. */
export class HttpError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
    private readonly options: HttpErrorOptions = {},
  ) {
    super(detail);
    this.status = ERROR_CODES[code];
  }

  get domainError(): DomainError | undefined {
    return this.options.domainError;
  }

  /** The response body in the service's own shape (http/middleware/errorShape.ts gives the platform's). */
  body(): unknown {
    return 'body' in this.options ? this.options.body : { detail: this.detail, code: this.code, ...this.extra };
  }
}

export const notFound = (detail = 'Not found.') => new HttpError('not_found', detail);

/**
 * A feature's refusal as the API answers it: the status of its code, and the spec's bodies —
 * `{detail, code, errors}` with the issues, `{code, detail, domain}` for an import-process error,
 * `{non_field_errors: {detail, code}, account_id}` for an account already imported.
 */
export function httpErrorOf(e: DomainError): HttpError {
  const options: HttpErrorOptions = { domainError: e };
  if (e instanceof AlreadyImportedError) {
    options.body = { non_field_errors: { detail: e.detail, code: e.code }, account_id: e.accountId };
  } else if (e.options.domain) {
    options.body = { code: e.code, detail: e.detail, domain: e.options.domain };
    return new HttpError(e.code, e.detail, { domain: e.options.domain }, {}, options);
  }
  return new HttpError(e.code, e.detail, e.options.issues ? { errors: e.options.issues } : {}, {}, options);
}
