import type { Context, Middleware } from 'koa';
import type { HttpError } from '../errors';
import { AlreadyImportedError } from '../../lib/errors';

/**
 * The error bodies of the operations this service shares with the platform, in the shapes the
 * platform's public data-import OpenAPI document gives them (docs/platform-compatibility.md), so a
 * client written against the platform parses every answer. Our stable `code` stays in each body:
 * the platform's shapes all leave room for more keys. Statuses the platform documents no body for
 * (401, 405, 413, 415, 429, 503) keep the service's own `{detail, code}`.
 */
export type ErrorBodyShape = (e: HttpError, ctx?: Context) => unknown;

/** The per-field issues an error carries (`errors: [{detail, code, attr}]`), or none. */
function issuesOf(e: HttpError): { detail: string; code: string; attr: string }[] {
  const errors = e.extra.errors;
  return Array.isArray(errors) ? (errors as { detail: string; code: string; attr: string }[]) : [];
}

function objectBody(e: HttpError): Record<string, unknown> {
  const body = e.body();
  return body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}

/**
 * v2 validate, create and status (the platform's `StandardizedValidationErrorResponse`): every 400
 * has `code`, `detail` and `errors` — the issues, or an empty array when the failure is not per
 * field (no body, malformed JSON, a create that failed validation, already imported). The keys of
 * the spec's own 400 bodies (`domain`; `non_field_errors` and `account_id`) stay beside them.
 */
export const v2ErrorBody: ErrorBodyShape = (e) =>
  e.status === 400 ? { ...objectBody(e), code: e.code, detail: e.detail, errors: issuesOf(e) } : e.body();

/**
 * v1 transactions, notes and historical statements (the platform's `NonFieldErrors`, the one 400
 * body of notes and statements and the request-level branch of transactions'
 * `BadCreateTransactionsRequest`): `non_field_errors` is a list of messages, one per issue
 * (`<attr>: <detail>`) or the error's detail; `code`, and `errors` when there are issues, stay.
 */
export const nonFieldErrorsBody: ErrorBodyShape = (e) => {
  if (e.status !== 400) return e.body();
  const issues = issuesOf(e);
  return {
    non_field_errors: issues.length > 0 ? issues.map((i) => `${i.attr}: ${i.detail}`) : [e.detail],
    code: e.code,
    ...(issues.length > 0 ? { errors: issues } : {}),
  };
};

/**
 * v1 validate-account, create-or-update and process (the platform's BadValidateAccountRequest,
 * BadCreateOrUpdateAccountImportProcess and BadProcessAccountImportProcess: its
 * AccountAlreadyImportedResponse or a DRFError): an account already imported answers
 * `external_account_number`, `kraken_account_number` and `non_field_errors` (a list of messages)
 * with `code`; every other 400 as the top-ups' NonFieldErrors, which is a DRFError too.
 */
export const v1AccountErrorBody: ErrorBodyShape = (e) =>
  e.domainError instanceof AlreadyImportedError
    ? { external_account_number: e.domainError.externalAccountNumber, kraken_account_number: e.domainError.accountId, non_field_errors: [e.detail], code: e.code }
    : nonFieldErrorsBody(e);

/**
 * Mounted on the route of an operation whose errors have the platform's shape (before
 * its body is read): an error thrown below it (body parsing, the handler) is answered in `shape`,
 * with its status, code and headers, by the one error middleware (http/middleware/errors.ts). A
 * bug (internal_error) keeps the service's bare 500.
 */
export function errorShape(shape: ErrorBodyShape): Middleware {
  return (ctx, next) => {
    ctx.state.errorShape = shape;
    return next();
  };
}

/** The error shape the operation of this request declared, if any. */
export const shapeOf = (ctx: Context): ErrorBodyShape | undefined => ctx.state.errorShape as ErrorBodyShape | undefined;
