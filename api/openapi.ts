import { AccountSchema, REFERENCED_SCHEMAS } from '../account/schema';
import { EnvelopeSchema } from '../account/taskParams';
import { COMMON_RESPONSES, ERROR_SCHEMAS, ref } from '../http/openapi';
import type { Operation } from '../http/operation';
import { operationPaths, operationSchemas } from '../http/openapiDocument';
import { OPERATIONS } from './operations';

/**
 * The OpenAPI 3.1 document of the REST API and the GraphQL token endpoint, merged from the
 * operations the API mounts (api/operations.ts: each operation's part of the document lives with
 * its route and handler, http/operation.ts), built from the same schema data the validator compiles
 * (account/schema.ts, account/taskParams.ts) and the one list of error codes (http/errors.ts), so
 * the document cannot drift from the code. Its paths and the operations' schemas come from the
 * shared builder (http/openapiDocument.ts), which builds the operations page's document too.
 *
 * Every sub-schema that carries an `$id` (`https://schemas.data-import/account/<Name>.json`)
 * becomes `#/components/schemas/<Name>` and is referenced from where it was nested: tools that do
 * not resolve `$id` URIs still find every schema.
 */

const ID = /^https:\/\/schemas\.data-import\/account\/([A-Za-z0-9]+)\.json$/;

/** A JSON copy without TypeBox's symbol keys, with nested `$id` schemas hoisted into `into`. */
function hoist(schema: unknown, into: Record<string, unknown>): unknown {
  if (Array.isArray(schema)) return schema.map((s) => hoist(s, into));
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema as Record<string, unknown>)) {
    if (k === '$id') continue;
    if (k === '$ref' && typeof v === 'string' && ID.test(v)) {
      out.$ref = ref(ID.exec(v)![1]!).$ref;
      continue;
    }
    // `metadata[].value` is free-form: its keys are data, not schema keywords.
    out[k] = k === 'properties' || k === '$defs' ? mapValues(v as Record<string, unknown>, (x) => hoist(x, into)) : hoist(v, into);
  }
  const id = (schema as { $id?: unknown }).$id;
  if (typeof id === 'string' && ID.test(id)) {
    const name = ID.exec(id)![1]!;
    into[name] = out;
    return ref(name);
  }
  return out;
}

function mapValues(o: Record<string, unknown>, f: (v: unknown) => unknown): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, f(v)]));
}

export function buildOpenApiDocument(operations: Operation<never>[] = OPERATIONS): Record<string, unknown> {
  const schemas: Record<string, unknown> = {};
  for (const s of REFERENCED_SCHEMAS) hoist(s, schemas);
  hoist(AccountSchema, schemas);
  hoist(EnvelopeSchema, schemas);
  // The envelope's payload is validated as an Account (separately, to keep Account-relative attrs).
  const envelope = schemas.Envelope as { properties: Record<string, unknown> };
  envelope.properties.payload = ref('Account');
  Object.assign(schemas, ERROR_SCHEMAS);
  Object.assign(schemas, operationSchemas(operations, schemas));

  return {
    openapi: '3.1.0',
    info: {
      title: 'Account data-import API',
      version: '1.0.0',
      description:
        'Validate, import and follow account imports; send registration flows. Authenticate with a token from `POST /v1/graphql/` (`obtainKrakenToken`) sent as `Authorization: Token <token>`; see docs/authentication.md.',
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    servers: [{ url: '/' }],
    tags: [{ name: 'accounts' }, { name: 'registrations' }, { name: 'platform' }, { name: 'authentication' }, { name: 'operations' }],
    paths: operationPaths(operations),
    components: {
      schemas,
      responses: COMMON_RESPONSES,
      securitySchemes: {
        Token: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: '`Token <token>` (also `JWT <token>` or the bare token), the token from obtainKrakenToken.',
        },
      },
    },
  };
}
