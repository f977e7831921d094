import { ERROR_SCHEMAS, json, plain as plainJson, ref } from '../http/openapi';
import { operationPaths, operationSchemas } from '../http/openapiDocument';
import { OPS_OPERATIONS } from './operations';
import { AffectedImportsSchema, BuildsSchema, ImportRecordSchema, OpsErrorSchema, SummarySchema, TrancheRequestSchema, TrancheSchema } from './schema';

/**
 * The OpenAPI 3.1 document of the operations listener (`GET /openapi.json` there), built by the
 * shared builder (http/openapiDocument.ts) from the listener's operations (ops/operations.ts: each
 * route's part of the document lives with its route, its query schema gives its parameters) and
 * the schemas of ops/schema.ts; its 400s are the API's validation shapes (http/openapi.ts
 * ERROR_SCHEMAS). Kept apart from the data-import API's document: another listener, another
 * audience (operators), another credential (OPS_TOKEN).
 */

/** A plain JSON copy without TypeBox's symbol keys and `$id`s. */
const plain = (schema: unknown) => {
  const { $id: _id, ...rest } = plainJson(schema);
  return rest;
};

/** The API's error schemas the page's operations answer with. */
const SHARED_ERRORS = { Issue: ERROR_SCHEMAS.Issue, QueryValidationFailed: ERROR_SCHEMAS.QueryValidationFailed, ParseError: ERROR_SCHEMAS.ParseError };

export function buildOpsOpenApiDocument() {
  const schemas: Record<string, unknown> = {
    OpsSummary: plain(SummarySchema),
    OpsAffectedImports: plain(AffectedImportsSchema),
    OpsImportRecord: plain(ImportRecordSchema),
    OpsBuilds: plain(BuildsSchema),
    OpsError: plain(OpsErrorSchema),
    OpsTrancheRequest: plain(TrancheRequestSchema),
    OpsTranche: plain(TrancheSchema),
    ...SHARED_ERRORS,
  };
  Object.assign(schemas, operationSchemas(OPS_OPERATIONS, schemas));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Data-import operations page',
      version: '1',
      description:
        'The numbers of the migration lead\'s page, for machines. Served on OPS_BIND (default 127.0.0.1:8001). ' +
        'When OPS_TOKEN is set (required beyond loopback) every request sends it as the HTTP Basic password or as `Authorization: Bearer <token>`. ' +
        'Counts come from roll-ups kept by database triggers in the same transaction as each status change.',
    },
    servers: [{ url: '/' }],
    security: [{}, { basic: [] }, { bearer: [] }],
    paths: operationPaths(OPS_OPERATIONS),
    components: {
      securitySchemes: {
        basic: { type: 'http', scheme: 'basic', description: 'Any user name; the password is OPS_TOKEN.' },
        bearer: { type: 'http', scheme: 'bearer', description: 'OPS_TOKEN.' },
      },
      responses: {
        NotAuthenticated: json(ref('OpsError'), 'OPS_TOKEN is set and the request has no token (`not_authenticated`) or a wrong one (`authentication_failed`).'),
      },
      schemas,
    },
  };
}
