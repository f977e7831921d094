import type { AppDeps } from './deps';
import type { NatsConnection } from '../events/nats';

/**
 * Wiring of the optional parts of the API (authentication, GraphQL, API documents,
 * registrations). Kept apart from main.ts so tests build the same app.
 */
export async function buildExtras(_deps: Omit<AppDeps, 'extraRouters' | 'authenticate'> & { nc: NatsConnection }): Promise<Pick<AppDeps, 'extraRouters' | 'authenticate'>> {
  return { extraRouters: [] };
}
