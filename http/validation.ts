import type { TSchema } from '@sinclair/typebox';
import type { ValidateFunction } from 'ajv';
import { ajv } from '../account/ajv';
import { translateAjvErrors } from '../account/errors';
import { IssueList, type Issue } from '../account/issues';
import { HttpError } from './errors';

/**
 * The one 400 `validation_error` of a request (its body, its query parameters): every issue,
 * `{detail, code, errors: [{detail, code, attr}]}` with the codes of docs/spec/RULES.md.
 */
export class ValidationError extends HttpError {
  constructor(
    readonly errors: Issue[],
    detail = 'The request failed validation.',
  ) {
    super('validation_error', detail, { errors });
  }
}

/** The detail of a validation_error of the query parameters. */
export const QUERY_FAILED = 'The query parameters failed validation.';

/**
 * The one body checker: compiled once from a request schema, it checks the shape (ajv, translated
 * to the codes of docs/spec/RULES.md) and then the request's own rules, which see only a
 * well-shaped body; any issue is a ValidationError.
 */
export function bodyChecker<T>(schema: TSchema, rules: (body: T, issues: IssueList) => void = () => undefined): (body: unknown) => T {
  const validate: ValidateFunction = ajv.compile(schema);
  return (body) => {
    const issues = new IssueList();
    if (!validate(body)) translateAjvErrors(validate.errors ?? [], body, issues);
    else rules(body as T, issues);
    if (issues.items.length > 0) throw new ValidationError(issues.result());
    return body as T;
  };
}
