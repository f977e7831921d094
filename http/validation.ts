import { Type, type TSchema } from '@sinclair/typebox';
import type { ValidateFunction } from 'ajv';
import { ajv } from '../account/ajv';
import { ajvErrorCode, translateAjvErrors } from '../account/errors';
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
/** The texts a boolean parameter is read from, in any case (another: left a string, answered `invalid`). */
const BOOLEAN_TEXT = new Map([
  ['true', true],
  ['1', true],
  ['false', false],
  ['0', false],
]);

interface QueryProperty {
  type?: unknown;
  format?: string;
  enum?: unknown[];
}

/** A parameter's value as its schema reads it: an integer's digits as a number, a boolean's text as a boolean, else the text. */
function read(property: QueryProperty, value: string): unknown {
  if (property.type === 'integer' && INTEGER_TEXT.test(value)) return Number(value);
  if (property.type === 'boolean') return BOOLEAN_TEXT.get(value.toLowerCase()) ?? value;
  return value;
}

/**
 * The code of a parameter given twice: the code of a bad value of it (account/errors.ts
 * ajvErrorCode: a date's `invalid_date`, a choice's `invalid_choice`), else a wrong type's, `invalid`.
 */
function repeatedCode(property: QueryProperty): string {
  if (property.format !== undefined) return ajvErrorCode('format', { format: property.format });
  return ajvErrorCode(property.enum !== undefined ? 'enum' : 'type');
}

/**
 * The one query checker: compiled once from a query schema (an object of optional or required
 * parameters, `additionalProperties: false`), it reads each parameter the schema names once (given
 * twice: the code of a bad value of it, `invalid` but for a format's or a choice's), an integer's
 * digits as a number, a boolean's `true`/`false`/`1`/`0` (any case) as a boolean, and checks the
 * result with ajv, translated to the codes of docs/spec/RULES.md (`unknown_field` for a parameter
 * the schema does not name, given once or more; `min_value`, `max_value`, `max_length`,
 * `required`, a format's own code, `invalid_choice`...): every issue at once, in a ValidationError
 * with QUERY_FAILED as its detail. A schema's `default` documents; the handler applies it.
 */
export function queryChecker<T>(schema: TSchema): (query: Record<string, string | string[] | undefined>) => T {
  const validate: ValidateFunction = ajv.compile(schema);
  const properties = (schema as { properties?: Record<string, QueryProperty> }).properties ?? {};
  const propertyOf = (name: string) => (Object.prototype.hasOwnProperty.call(properties, name) ? properties[name] : undefined);
  return (query) => {
    const issues = new IssueList();
    // No prototype: a parameter named __proto__ is a parameter like any other (unknown_field).
    const values: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const [name, value] of Object.entries(query)) {
      if (value === undefined) continue;
      const property = propertyOf(name);
      // A parameter the schema does not name is answered unknown_field, given once or more.
      if (property === undefined) values[name] = value;
      else if (Array.isArray(value)) issues.add(repeatedCode(property), name, `Give ${name} once.`);
      else values[name] = read(property, value);
    }
    if (!validate(values)) translateAjvErrors(validate.errors ?? [], values, issues);
    if (issues.items.length > 0) throw new ValidationError(issues.result(), QUERY_FAILED);
    return values as T;
  };
}

/**
 * The query of an operation that takes no parameters (the platform's GET operations of one
 * account, the operations page's routes without options): any one is answered 400
 * `validation_error`, `unknown_field` with the parameter as its attr, so a misspelt parameter is
 * never silently ignored (docs/platform-compatibility.md, "Deliberate differences").
 */
export const NO_QUERY = Type.Object({}, { additionalProperties: false });
