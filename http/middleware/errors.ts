import type { Middleware } from 'koa';
import type { Logger } from '../../lib/logger';
import { HttpError, httpErrorOf } from '../errors';
import { DomainError } from '../../lib/errors';
import { JsonBoundsError } from '../../lib/jsonBounds';
import { isUnstorableText } from '../../db/pgErrors';
import { shapeOf } from './errorShape';

/**
 * The answer an error thrown by a handler becomes: an HttpError as it is; a feature's refusal
 * (DomainError, lib/errors.ts) with the status and body of its code; a NUL byte (or another
 * character PostgreSQL text cannot hold) in a value the request sent, reaching a query, is a value
 * that cannot exist in the database — looked up by a GET, the resource does not exist; sent in a
 * body, it is bad input; anything else is our bug, a bare 500. The one place that decides, so the
 * access log and metrics (observe) record the status the client really gets.
 */
export function answerFor(err: unknown, method: string): HttpError {
  if (err instanceof HttpError) return err;
  if (err instanceof DomainError) return httpErrorOf(err);
  // A payload read back from the database past the bounds a body is held to (imports/staging.ts).
  if (err instanceof JsonBoundsError) return new HttpError('payload_too_large', err.message);
  if (isUnstorableText(err)) {
    return method === 'GET' || method === 'HEAD'
      ? new HttpError('not_found', 'Not found.')
      : new HttpError('invalid', 'A text value of the request contains a character that cannot be stored (U+0000).');
  }
  return new HttpError('internal_error', 'Internal server error.');
}

/**
 * Registered first: the one middleware that turns whatever goes wrong below into its documented
 * answer: the status of its code, and the body in the shape the operation declared
 * (http/middleware/errorShape.ts), else the service's own `{detail, code, ...}`. Anything that is
 * neither an HttpError nor a DomainError is our bug: logged with its stack, answered as a bare 500
 * with no details.
 */
export function errorHandler(log: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new HttpError('not_found', `No route for ${ctx.method} ${ctx.path}.`);
      }
    } catch (err) {
      const e = answerFor(err, ctx.method);
      if (e.code === 'internal_error') {
        (ctx.state.log as Logger | undefined ?? log).error({ err, requestId: ctx.state.requestId }, 'unhandled error');
      }
      ctx.status = e.status;
      const shape = e.code === 'internal_error' ? undefined : shapeOf(ctx);
      ctx.body = shape ? shape(e, ctx) : e.body();
      for (const [k, v] of Object.entries(e.headers)) ctx.set(k, v);
    }
  };
}
