import type { TSchema } from '@sinclair/typebox';
import type { Middleware } from 'koa';
import type { JsonLimits } from '../lib/jsonBounds';
import type { ErrorBodyShape } from './middleware/errorShape';

/** An OpenAPI 3.1 operation object (the value under a path and method of the document). */
export type OpenApiOperation = Record<string, unknown>;

/** Component schemas an operation brings to the document, or a function of those already there (the Account's). */
export type OpenApiSchemas = Record<string, unknown> | ((components: Record<string, unknown>) => Record<string, unknown>);

/** A JSON body's own bounds, in place of the listener's (the operations page's POST /api/tranche). */
export interface BodyBounds {
  /** Bytes of the body (413 `payload_too_large` past them). */
  limitBytes: number;
  /** What the body may parse to (lib/jsonBounds.ts), checked before it is parsed. */
  json: JsonLimits;
}

/**
 * One HTTP operation, whole, in its feature: how it is routed, what runs before its handler, the
 * handler, and its part of the OpenAPI document. api/operations.ts collects the features' lists;
 * api/ mounts each (api/router.ts) and builds the document from the same list (api/openapi.ts),
 * so a route and its documentation cannot be apart. The operations page's listener mounts its own
 * list the same way (ops/operations.ts, http/mount.ts, http/openapiDocument.ts).
 *
 * `D` is what the handler needs of the API's dependencies: the feature names the fields it uses
 * (as `RouteDeps`, http/deps.ts), so it imports nothing of api/.
 */
export interface Operation<D> {
  method: 'get' | 'post';
  /** The documented path; `{import_supplier_code}` and `{external_account_number}` are routed as `:supplier` and `:external`. */
  path: string;
  /**
   * The router's pattern when it is not the documented path so routed: the metrics' route label
   * and the match (`/v2/data-import/accounts` answers with and without its trailing slash).
   */
  route?: string;
  /** No authentication and no rate limit: the health and document endpoints, the token endpoint. */
  open?: true;
  /** The platform's shape of the operation's errors (http/middleware/errorShape.ts); else the service's own. */
  errors?: ErrorBodyShape;
  /**
   * A JSON body, read before the handler (http/middleware/jsonBody.ts): within API_BODY_LIMIT, the
   * JSON bounds and the body budget (`true`), or within the operation's own bounds.
   */
  body?: true | BodyBounds;
  /**
   * The query parameters, checked before the handler (http/validation.ts `queryChecker`: 400
   * `validation_error` with every issue; the checked values in `ctx.state.query`) and documented
   * from the same schema as the operation's `in: query` parameters (http/openapiDocument.ts).
   * Without it the handler reads the query itself.
   */
  query?: TSchema;
  handler: (deps: D) => Middleware;
  openapi: OpenApiOperation;
  schemas?: OpenApiSchemas;
}

/** The router's names of the documented path parameters (the metrics' route labels carry them). */
const ROUTE_PARAMS: Record<string, string> = { import_supplier_code: 'supplier', external_account_number: 'external' };

/** The router's pattern of an operation. */
export function routeOf(op: Pick<Operation<never>, 'path' | 'route'>): string {
  return op.route ?? op.path.replace(/\{([^}/]+)\}/g, (_, name: string) => `:${ROUTE_PARAMS[name] ?? name}`);
}

/** Typed identity: a feature's operation, its dependencies inferred from its handler. */
export const operation = <D>(op: Operation<D>): Operation<D> => op;
