import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/logger';
import type { Metrics } from '../lib/metrics';
import type { ReferenceDataCache } from '../account/referenceDataCache';
import type { DocumentStore } from '../account/documents';
import type { AuthStore } from '../auth/store';
import type { RouteDeps } from '../http/deps';
import type { TokenService } from '../auth/tokens';
import type { RateLimiter } from '../http/middleware/rateLimit';

export type ReadinessCheck = () => Promise<void>;

/** What the API is built from: production (api/main.ts) and tests pass the same fields. */
export interface AppDeps {
  config: Config;
  db: Knex;
  log: Logger;
  metrics: Metrics;
  temporal: Client;
  referenceData: ReferenceDataCache;
  documentStore?: DocumentStore;
  /** Named checks for /readyz; each throws when its dependency is unreachable. */
  readiness: Record<string, ReadinessCheck>;
  /** API keys, refresh tokens and grants: `dbAuthStore(db)` in production. */
  authStore: AuthStore;
}

/**
 * What every operation's handler is built from (api/router.ts): the app's dependencies, the
 * authentication every data-import operation runs first and the body budget (http/deps.ts), the
 * token service and its rate limit (the token endpoint), and the OpenAPI document (its endpoint).
 */
export interface RouterDeps extends AppDeps, RouteDeps {
  tokens: TokenService;
  tokenLimiter: RateLimiter;
  openApiDocument: () => unknown;
}
