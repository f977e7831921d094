import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { AppDeps, RouterDeps } from './deps';
import { createAuthenticator } from '../auth/authenticate';
import { createTokenService } from '../auth/tokens';
import { jsonBody } from '../http/middleware/jsonBody';
import { rateLimit } from '../http/middleware/rateLimit';
import { PgBucketLimiter } from '../http/middleware/pgRateLimit';
import { mountOperations } from '../http/mount';
import { PayloadBudget } from '../lib/payloadBudget';
import { buildOpenApiDocument } from './openapi';
import { OPERATIONS } from './operations';

/**
 * The API's router: every operation of the registry (api/operations.ts), each run as
 * authentication, then its error shape, then its query, then its body, then its handler
 * (http/mount.ts). Authentication is always
 * on: `authenticate` is authentication then the per-organisation rate limit, and every data-import
 * operation runs it first, so only authenticated data-import calls count against an organisation's
 * bucket. The operations marked `open` (health, the API documents, the token endpoint) skip it.
 */
export function apiRouter(deps: AppDeps): Router {
  const { config } = deps;
  const tokens = createTokenService(deps.authStore, config.auth);
  // The buckets are in PostgreSQL (rate_limit_buckets): a restart of the API does not refill them.
  const limiter = new PgBucketLimiter(deps.db, 'org', { perMinute: config.auth.rateLimitPerMinute, burst: config.auth.rateLimitBurst });
  const authn = createAuthenticator({ store: deps.authStore, config, tokens });
  const limit = rateLimit(limiter);
  const authenticate: Middleware = (ctx, next) => authn(ctx, () => limit(ctx, next));
  // One organisation holds at most half the body budget (or one body of any size): another
  // organisation's large body always finds room (issue 39, finding 2).
  const bodyBudget = new PayloadBudget(config.http.bodyBudgetBytes, undefined, Math.floor(config.http.bodyBudgetBytes / 2));
  const routed: RouterDeps = {
    ...deps,
    authenticate,
    bodyBudget,
    tokens,
    tokenLimiter: new PgBucketLimiter(deps.db, 'token', { perMinute: config.auth.tokenRateLimitPerMinute, burst: config.auth.tokenRateLimitBurst }),
    openApiDocument: buildOpenApiDocument,
  };

  return mountOperations(new Router(), OPERATIONS, routed, {
    authenticate,
    body: (own) =>
      jsonBody(own?.limitBytes ?? config.http.bodyLimitBytes, own?.json ?? config.http.json, { budget: bodyBudget, stallMs: config.http.bodyStallMs }),
  });
}
