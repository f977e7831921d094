import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { HttpError } from '../errors';

/**
 * @koa/router's `allowedMethods()` with the project's error shape: a path that exists, asked with
 * a method it does not support, answers 405 `method_not_allowed` with the `Allow` header (RFC 9110
 * §15.5.6) listing the methods it does support; `OPTIONS` answers 200 with `Allow` and no body.
 *
 * The router answers 501 for methods outside its own list (TRACE, QUERY, PROPFIND...). Node's
 * parser refuses any method it does not know with 400 before the app sees it, so every method that
 * reaches here is a known one: "known, not supported by the target resource" is 405, not 501.
 *
 * The router's `throw` option would drop the `Allow` header (its error factories get no method
 * list), so the router sets status and header, and the answer is rewritten here.
 */
export function allowedMethods(router: Router): Middleware {
  // Koa middleware at run time; typed for a router's own context, which app.use supplies.
  const inner = router.allowedMethods() as unknown as Middleware;
  return async (ctx, next) => {
    await inner(ctx, next);
    if ((ctx.status === 405 || ctx.status === 501) && ctx.body == null) {
      const allow = ctx.response.get('Allow');
      if (!allow) {
        // No route of this path takes any method (only a router-level middleware matched it, or
        // nothing did): an unknown path, whatever the method. errorHandler renders the 404.
        ctx.remove('Allow');
        ctx.status = 404;
        return;
      }
      throw new HttpError('method_not_allowed', `${ctx.method} is not supported on this path; use ${allow}.`, {}, { Allow: allow });
    }
  };
}
