import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import type { Middleware } from 'koa';
import type Router from '@koa/router';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/logger';
import type { Metrics } from '../lib/metrics';
import type { ReferenceDataCache } from '../account/referenceDataCache';
import type { DocumentStore } from '../account/documents';

export type ReadinessCheck = () => Promise<void>;

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
  /**
   * Authenticates data-import operations (sets ctx.state.principal). Absent: the routes run
   * unauthenticated (tests of the import path only).
   */
  authenticate?: Middleware;
  /** Extra routers mounted by other modules (GraphQL, documents, registrations). */
  extraRouters?: Router[];
}
