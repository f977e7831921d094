import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { AppDeps, RouterDeps } from './deps';
import { createAuthenticator } from '../auth/authenticate';
import { rateLimit, TokenBucketLimiter } from '../http/middleware/rateLimit';
import { healthRouter } from './routes/health';
import { importsRouter } from './routes/imports';
import { reconcileRouter } from './routes/reconcile';
import { graphqlRouter } from './routes/graphql';
import { docsRouter } from './routes/docs';
import { registrationsRouter } from './routes/registrations';
import { platformRouter } from '../platform/routes';
import { topUpsRouter } from '../platform/topUps/routes';
import { accountImportRouter } from '../platform/accountImport/routes';
import { createTokenService } from '../auth/tokens';
import { PayloadBudget } from '../lib/payloadBudget';

/**
 * Every router of the API, in mounting order. Authentication is always on: `authenticate` is
 * authentication then the per-organisation rate limit, and every data-import router runs it
 * first, so only authenticated data-import calls count against an organisation's bucket. The
 * health endpoints, the API documents and the token endpoint stay open.
 */
export function apiRouters(deps: AppDeps): Router[] {
  const { config, log } = deps;
  const tokens = createTokenService(deps.authStore, config.auth);
  const limiter = new TokenBucketLimiter({ perMinute: config.auth.rateLimitPerMinute, burst: config.auth.rateLimitBurst });
  const authn = createAuthenticator({ store: deps.authStore, config, tokens });
  const limit = rateLimit(limiter);
  const authenticate: Middleware = (ctx, next) => authn(ctx, () => limit(ctx, next));
  // One organisation holds at most half the body budget (or one body of any size): another
  // organisation's large body always finds room (issue 39, finding 2).
  const bodyBudget = new PayloadBudget(config.http.bodyBudgetBytes, undefined, Math.floor(config.http.bodyBudgetBytes / 2));
  const routed: RouterDeps = { ...deps, authenticate, bodyBudget };
  return [
    healthRouter(deps),
    importsRouter(routed),
    reconcileRouter(routed),
    graphqlRouter({ tokens, log, limiter: new TokenBucketLimiter({ perMinute: config.auth.tokenRateLimitPerMinute, burst: config.auth.tokenRateLimitBurst }) }),
    docsRouter({ subjectPrefix: config.nats.subjectPrefix }),
    registrationsRouter(routed),
    platformRouter(routed),
    topUpsRouter(routed),
    accountImportRouter(routed),
  ];
}
