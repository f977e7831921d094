import Koa from 'koa';
import Router from '@koa/router';
import type { AppDeps } from './deps';
import { errorHandler } from './middleware/errors';
import { observe, securityHeaders } from './middleware/observe';
import { requestTimeout } from './middleware/timeout';
import { allowedMethods } from './middleware/allowedMethods';
import { healthRouter } from './routes/health';
import { importsRouter } from './routes/imports';

/**
 * Builds the Koa application (STYLE.md #10: tests drive `app.callback()` without a port).
 * Middleware order: error rendering first, so nothing below can answer a stack trace.
 */
export function createApp(deps: AppDeps): Koa {
  const app = new Koa({ proxy: false });
  app.silent = true; // errors are logged by errorHandler, once, with the request id
  app.use(errorHandler(deps.log));
  app.use(observe(deps.log, deps.metrics));
  app.use(securityHeaders());
  app.use(requestTimeout(deps.config.http.requestTimeoutMs));

  const routers: Router[] = [healthRouter(deps), importsRouter(deps), ...(deps.extraRouters ?? [])];
  for (const r of routers) {
    app.use(r.routes());
    app.use(allowedMethods(r));
  }
  return app;
}
