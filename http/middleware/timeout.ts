import type { Context, Middleware } from 'koa';
import { HttpError } from '../errors';

/**
 * Answers 503 request_timeout when a request takes longer than `ms`. The work below may still
 * finish (a create that commits after the timeout is not lost: the status operation shows it).
 *
 * Each request gets an AbortSignal (`requestSignal`), aborted when the request times out or its
 * client leaves before the answer: what waits on the client (the body read, a place in the body
 * budget's queue) ends with it, so nothing it holds outlives the request.
 */
export function requestTimeout(ms: number): Middleware {
  return async (ctx, next) => {
    const controller = new AbortController();
    ctx.state.signal = controller.signal;
    const left = () => {
      if (!ctx.res.writableFinished) controller.abort(new HttpError('request_timeout', 'The client closed the connection.'));
    };
    ctx.res.once('close', left);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const err = new HttpError('request_timeout', `The request took longer than ${ms} ms.`);
        // What is left of the request (a body still arriving) is not read: the connection ends with the answer.
        ctx.set('Connection', 'close');
        controller.abort(err);
        reject(err);
      }, ms);
    });
    try {
      await Promise.race([next(), timeout]);
    } finally {
      clearTimeout(timer);
    }
  };
}

/** The request's AbortSignal (see requestTimeout); undefined where that middleware is not mounted. */
export function requestSignal(ctx: Context): AbortSignal | undefined {
  return ctx.state.signal as AbortSignal | undefined;
}
