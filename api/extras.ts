import type { Middleware } from 'koa';
import type { AppDeps } from './deps';
import type { NatsConnection } from '../events/nats';
import { createAuthenticator } from './middleware/authenticate';
import { rateLimit, TokenBucketLimiter } from './middleware/rateLimit';
import { graphqlRouter } from './routes/graphql';
import { docsRouter } from './routes/docs';
import { registrationsRouter } from './routes/registrations';
import { platformRouter } from '../platform/routes';
import { topUpsRouter } from '../platform/topUps/routes';
import { createTokenService } from '../auth/tokens';
import { dbTokenStore } from '../auth/store';

/**
 * Wiring of the optional parts of the API (authentication, GraphQL, API documents,
 * registrations). Kept apart from main.ts so tests build the same app.
 *
 * `authenticate` is authentication then the per-organisation rate limit: the data-import routers
 * call it, so only authenticated data-import calls count against an organisation's bucket. The
 * health endpoints, the API documents and the token endpoint stay open.
 */
export async function buildExtras(deps: Omit<AppDeps, 'extraRouters' | 'authenticate'> & { nc: NatsConnection }): Promise<Pick<AppDeps, 'extraRouters' | 'authenticate'>> {
  const { config, db, log } = deps;
  const tokens = createTokenService(dbTokenStore(db), config.auth);
  const limiter = new TokenBucketLimiter({ perMinute: config.auth.rateLimitPerMinute, burst: config.auth.rateLimitBurst });
  const authn = createAuthenticator({ db, config, tokens });
  const limit = rateLimit(limiter);
  const authenticate: Middleware = (ctx, next) => authn(ctx, () => limit(ctx, next));
  return {
    authenticate,
    extraRouters: [
      graphqlRouter({ tokens, log }),
      docsRouter({ subjectPrefix: config.nats.subjectPrefix }),
      registrationsRouter({ ...deps, authenticate }),
      platformRouter({ ...deps, authenticate }),
      topUpsRouter({ ...deps, authenticate }),
    ],
  };
}
