import type { TSchema } from '@sinclair/typebox';
import type { ValidateFunction } from 'ajv';
import { ajv } from '../../account/ajv';
import { translateAjvErrors } from '../../account/errors';
import { IssueList, type Issue } from '../../account/issues';
import { HttpError } from '../../http/errors';

/** 400 `validation_error` with every issue of the body: `{detail, code, errors: [{detail, code, attr}]}`. */
export class TopUpValidationError extends HttpError {
  constructor(readonly errors: Issue[]) {
    super('validation_error', 'The request failed validation.', { errors });
  }
}

/**
 * A body checker compiled once from a request schema: the shape (ajv, translated to the codes of
 * docs/spec/RULES.md) and then the request's own rules, which see only a well-shaped body.
 */
export function bodyChecker<T>(schema: TSchema, rules: (body: T, issues: IssueList) => void): (body: unknown) => T {
  const validate: ValidateFunction = ajv.compile(schema);
  return (body) => {
    const issues = new IssueList();
    if (!validate(body)) translateAjvErrors(validate.errors ?? [], body, issues);
    else rules(body as T, issues);
    if (issues.items.length > 0) throw new TopUpValidationError(issues.result());
    return body as T;
  };
}

/** Items whose identifier is missing (`missing`) or repeated in the request (`duplicate`). */
export function checkIds<T>(items: T[], list: string, field: keyof T & string, issues: IssueList, codes: { missing?: string; duplicate: string }): void {
  const seen = new Set<unknown>();
  items.forEach((item, i) => {
    const id = item[field];
    if (id === undefined) {
      if (codes.missing) issues.add(codes.missing, `${list}.${i}.${field}`, `Every item needs a ${field}.`);
    } else if (seen.has(id)) issues.add(codes.duplicate, `${list}.${i}.${field}`, `${field} ${String(id)} is given twice.`);
    else seen.add(id);
  });
}
