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

/** Digits a query value may have to be read as an integer (longer: left a string, answered `invalid`). */
const INTEGER_TEXT = /^-?\d{1,15}$/;

/**
 * The one query checker: compiled once from a query schema (an object of optional or required
 * parameters, `additionalProperties: false`), it reads each parameter once (given twice: `invalid`),
 * an integer parameter's digits as a number, and checks the result with ajv, translated to the
 * codes of docs/spec/RULES.md (`unknown_field` for a parameter the schema does not name,
 * `min_value`, `max_value`, `max_length`, `required`...); any issue is a ValidationError with
 * QUERY_FAILED as its detail.
 */
export function queryChecker<T>(schema: TSchema): (query: Record<string, string | string[] | undefined>) => T {
  const validate: ValidateFunction = ajv.compile(schema);
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  return (query) => {
    const issues = new IssueList();
    const values: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(query)) {
      if (value === undefined) continue;
      if (Array.isArray(value)) {
        issues.add('invalid', name, `Give ${name} once.`);
        continue;
      }
      values[name] = properties[name]?.type === 'integer' && INTEGER_TEXT.test(value) ? Number(value) : value;
    }
    if (!validate(values)) translateAjvErrors(validate.errors ?? [], values, issues);
    if (issues.items.length > 0) throw new ValidationError(issues.result(), QUERY_FAILED);
    return values as T;
  };
}
