import type { Middleware } from 'koa';
import type { PayloadBudget } from '../lib/payloadBudget';

/**
 * What the wiring (api/router.ts) hands every operation besides the dependencies of its feature:
 * an operation's handler names the fields it needs (http/operation.ts), so it imports nothing of `api/`.
 */
export interface RouteDeps {
  /** Authentication, then the organisation's rate limit (built once by the wiring). */
  authenticate: Middleware;
  /** Large request bodies held at once (API_BODY_BUDGET; http/middleware/jsonBody.ts). */
  bodyBudget: PayloadBudget;
}
