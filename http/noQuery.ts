import type { Context } from 'koa';
import { QUERY_FAILED, ValidationError } from './validation';

/**
 * The platform's GET operations of one account take no query parameters: any one is answered 400
 * `validation_error` (`unknown_field`, attr the parameter), so a misspelt parameter is never
 * silently ignored (docs/platform-compatibility.md, "Deliberate differences").
 */
export function rejectQueryParameters(ctx: Context): void {
  const keys = Object.keys(ctx.query);
  if (keys.length === 0) return;
  const errors = keys.map((k) => ({ detail: `Unknown query parameter ${k}.`, code: 'unknown_field', attr: k }));
  throw new ValidationError(errors, QUERY_FAILED);
}
