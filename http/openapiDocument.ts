import { isDeepStrictEqual } from 'node:util';
import type { Operation } from './operation';
import { plain } from './openapi';

/**
 * The shared half of building an OpenAPI document from a registry of operations
 * (http/operation.ts): `paths` from each operation's part, in the registry's order, and the
 * component schemas the operations bring. The API's document (api/openapi.ts) and the operations
 * page's (ops/openapi.ts) are both built here, each around its own info, security and shared
 * components, so no listener writes its paths by hand.
 */

type Schema = Record<string, unknown>;

/**
 * The `in: query` parameters of an operation's query schema (http/validation.ts `queryChecker`
 * checks the same schema): one per property, in its order, `required` as the schema says, the
 * property's description on the parameter.
 */
export function queryParameters(query: unknown): Schema[] {
  const q = plain(query) as { properties?: Record<string, Schema>; required?: string[] };
  return Object.entries(q.properties ?? {}).map(([name, property]) => {
    const { description, ...schema } = property;
    return { name, in: 'query', required: (q.required ?? []).includes(name), ...(description === undefined ? {} : { description }), schema };
  });
}

/** An operation's part of the document: as it wrote it, with the parameters of its query schema after its own (before its body and responses). */
function operationObject(op: Operation<never>): Schema {
  if (!op.query) return op.openapi;
  const { parameters: own, requestBody, responses, ...head } = op.openapi;
  const parameters = [...((own as Schema[] | undefined) ?? []), ...queryParameters(op.query)];
  return { ...head, ...(parameters.length > 0 ? { parameters } : {}), ...(requestBody === undefined ? {} : { requestBody }), responses };
}

/** The component schemas the operations bring, each name once (an operation may repeat a schema it shares with others, as it is). */
export function operationSchemas(operations: readonly Operation<never>[], components: Schema): Schema {
  const out: Schema = {};
  for (const op of operations) {
    const schemas = typeof op.schemas === 'function' ? op.schemas(components) : (op.schemas ?? {});
    for (const [name, schema] of Object.entries(schemas)) {
      if (name in out && !isDeepStrictEqual(out[name], schema)) throw new Error(`OpenAPI: two different schemas named ${name} (${op.method.toUpperCase()} ${op.path})`);
      if (name in components) throw new Error(`OpenAPI: ${op.method.toUpperCase()} ${op.path} redefines the schema ${name}`);
      out[name] = schema;
    }
  }
  return out;
}

/** `paths`: each operation's part under its path and method, in the registry's order. */
export function operationPaths(operations: readonly Operation<never>[]): Record<string, Schema> {
  const paths: Record<string, Schema> = {};
  for (const op of operations) {
    const item = (paths[op.path] ??= {});
    if (item[op.method]) throw new Error(`OpenAPI: ${op.method.toUpperCase()} ${op.path} is registered twice`);
    item[op.method] = operationObject(op);
  }
  return paths;
}
