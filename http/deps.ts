import type { Middleware } from 'koa';
import type { PayloadBudget } from '../lib/payloadBudget';

/**
 * What the wiring (api/extras.ts) hands every data-import router besides the dependencies of its
 * feature: a feature's router names the fields it needs of both, so it imports nothing of `api/`.
 */
export interface RouteDeps {
  /** Authentication, then the organisation's rate limit (built once by the wiring). */
  authenticate: Middleware;
  /** Large request bodies held at once (API_BODY_BUDGET; http/middleware/jsonBody.ts). */
  bodyBudget: PayloadBudget;
}
