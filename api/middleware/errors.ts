import type { Middleware } from 'koa';
import type { Logger } from '../../lib/logger';
import { HttpError } from '../errors';
import { isUnstorableText } from '../../db/pgErrors';

/**
 * Registered first: whatever goes wrong below answers the documented error shape. Anything that
 * is not an HttpError is our bug: logged with its stack, answered as a bare 500 with no details.
 */
export function errorHandler(log: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new HttpError('not_found', `No route for ${ctx.method} ${ctx.path}.`);
      }
    } catch (err) {
      let e: HttpError;
      if (err instanceof HttpError) {
        e = err;
      } else if (isUnstorableText(err)) {
        // A NUL byte (or another character PostgreSQL text cannot hold) in a value the request
        // sent, reaching a query: no such value can exist in the database. Looked up by a GET,
        // the resource does not exist; sent in a body, it is bad input.
        e =
          ctx.method === 'GET' || ctx.method === 'HEAD'
            ? new HttpError('not_found', 'Not found.')
            : new HttpError('invalid', 'A text value of the request contains a character that cannot be stored (U+0000).');
      } else {
        (ctx.state.log as Logger | undefined ?? log).error({ err, requestId: ctx.state.requestId }, 'unhandled error');
        e = new HttpError('internal_error', 'Internal server error.');
      }
      ctx.status = e.status;
      ctx.body = e.body();
      for (const [k, v] of Object.entries(e.headers)) ctx.set(k, v);
    }
  };
}
