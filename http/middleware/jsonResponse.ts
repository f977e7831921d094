import type { Middleware } from 'koa';

/**
 * The answer's JSON written here, inside the error middleware and the access log (api/app.ts),
 * instead of by Koa after every middleware has returned: a body `JSON.stringify` cannot write (a
 * value nested thousands deep overflows the stack; a BigInt) then becomes the documented 500
 * `{detail, code}`, logged once, instead of Koa's plain-text "Internal Server Error" outside the
 * error shape (issue 47). The text is what Koa would have written.
 */
export function jsonResponse(): Middleware {
  return async (ctx, next) => {
    await next();
    const body: unknown = ctx.body;
    if (body === null || typeof body !== 'object' || Buffer.isBuffer(body) || typeof (body as { pipe?: unknown }).pipe === 'function') return;
    // Koa set the JSON content type when the object was assigned; a string keeps it.
    ctx.body = JSON.stringify(body);
  };
}
