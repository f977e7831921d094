import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { errorShape } from './middleware/errorShape';
import { type BodyBounds, type Operation, routeOf } from './operation';
import { queryChecker } from './validation';

/** What a listener puts before its operations' handlers (api/router.ts, ops/server.ts). */
export interface Mounting {
  /** Run first by every operation but the `open` ones; none: the listener protects itself (the operations page). */
  authenticate?: Middleware;
  /** Reads the JSON body of an operation with `body`: the listener's bounds, or the operation's own. */
  body: (bounds: BodyBounds | undefined) => Middleware;
}

/** Checks the query of an operation with a `query` schema; the checked values are `ctx.state.query`. */
function checkQuery(op: Operation<never>): Middleware[] {
  if (!op.query) return [];
  const check = queryChecker<Record<string, unknown>>(op.query);
  return [
    (ctx, next) => {
      ctx.state.query = check(ctx.query);
      return next();
    },
  ];
}

/**
 * Routes every operation of a registry on `router`, each run as authentication, then its error
 * shape, then its query, then its body, then its handler: the API's (api/operations.ts) and the
 * operations page's (ops/operations.ts) alike, so both answer bad input on the one error path
 * (http/middleware/errors.ts) with the same codes.
 */
export function mountOperations<D>(router: Router, operations: readonly Operation<D>[], deps: D, m: Mounting): Router {
  for (const op of operations) {
    const chain: Middleware[] = [
      ...(op.open || !m.authenticate ? [] : [m.authenticate]),
      ...(op.errors ? [errorShape(op.errors)] : []),
      ...checkQuery(op as Operation<never>),
      ...(op.body ? [m.body(op.body === true ? undefined : op.body)] : []),
      op.handler(deps),
    ];
    router[op.method](routeOf(op), ...chain);
  }
  return router;
}
