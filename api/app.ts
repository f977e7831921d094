import Koa from 'koa';
import type { AppDeps } from './deps';
import { errorHandler } from '../http/middleware/errors';
import { observe, securityHeaders } from '../http/middleware/observe';
import { jsonResponse } from '../http/middleware/jsonResponse';
import { requestTimeout } from '../http/middleware/timeout';
import { allowedMethods } from '../http/middleware/allowedMethods';
import { apiRouter } from './router';

/**
 * Builds the Koa application (docs/spec/STYLE.md #10: tests drive `app.callback()` without a port).
 * Middleware order: error rendering first, so nothing below can answer a stack trace.
 * There is one app: tests build it from the same dependencies as api/main.ts (authentication
 * always required; a test passes a small AuthStore or the real one).
 */
export function createApp(deps: AppDeps): Koa {
  const app = new Koa({ proxy: false });
  app.silent = true; // errors are logged by errorHandler, once, with the request id
  app.use(errorHandler(deps.log));
  app.use(observe(deps.log, deps.metrics));
  app.use(jsonResponse());
  app.use(securityHeaders());
  app.use(requestTimeout(deps.config.http.requestTimeoutMs));

  const r = apiRouter(deps);
  app.use(r.routes());
  app.use(allowedMethods(r));
  return app;
}
