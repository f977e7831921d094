import { AffectedImportsSchema, BuildsSchema, ImportRecordSchema, OpsErrorSchema, SummarySchema, TrancheRequestSchema, TrancheSchema } from './schema';

/**
 * The OpenAPI 3.1 document of the operations listener (`GET /openapi.json` there), built from the
 * schemas of ops/schema.ts. Kept apart from the data-import API's document: another listener,
 * another audience (operators), another credential (OPS_TOKEN).
 */

/** A plain JSON copy without TypeBox's symbol keys and `$id`s. */
const plain = (schema: unknown) => {
  const { $id: _id, ...rest } = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
  return rest;
};
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: unknown, description: string) => ({ description, content: { 'application/json': { schema } } });
const errors = {
  '401': { $ref: '#/components/responses/NotAuthenticated' },
  '404': json(ref('OpsError'), 'Unknown import supplier or import (`not_found`).'),
  '400': json(ref('OpsError'), 'A bad or unknown query parameter (`validation_error`).'),
};
const supplierParam = {
  name: 'supplier',
  in: 'query',
  required: false,
  description: 'An import supplier code; absent = all suppliers.',
  schema: { type: 'string', maxLength: 64 },
};

export function buildOpsOpenApiDocument() {
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
    paths: {
      '/api/summary': {
        get: {
          operationId: 'opsSummary',
          summary: 'Counts, rate and ETA, latency, error codes, registrations, e-mails and the outbox',
          parameters: [
            supplierParam,
            { name: 'hours', in: 'query', required: false, description: 'Width of the time series (default 6).', schema: { type: 'integer', minimum: 1, maximum: 72 } },
          ],
          responses: { '200': json(ref('OpsSummary'), 'The summary.'), ...errors },
        },
      },
      '/api/tranche': {
        post: {
          operationId: 'opsTranche',
          summary: "The progress of one tranche: the account numbers of its book, counted by import status (not started: no import process yet), beside the supplier's totals of /api/summary. A read: nothing is stored.",
          requestBody: { required: true, content: { 'application/json': { schema: ref('OpsTrancheRequest') } } },
          responses: {
            '200': json(ref('OpsTranche'), 'The tranche by status.'),
            ...errors,
            '413': json(ref('OpsError'), 'A body over 16 MiB (`payload_too_large`).'),
            '415': json(ref('OpsError'), 'A body that is not application/json (`unsupported_media_type`).'),
          },
        },
      },
      '/api/errors': {
        get: {
          operationId: 'opsAffectedImports',
          summary: 'The ERRORED / DRY_RUN_ERRORED imports with one error code, in account order, a page at a time',
          parameters: [
            { name: 'code', in: 'query', required: true, schema: { type: 'string', maxLength: 200 } },
            supplierParam,
            { name: 'after', in: 'query', required: false, description: '`next` of the previous page.', schema: { type: 'string' } },
            { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 500, default: 100 } },
          ],
          responses: { '200': json(ref('OpsAffectedImports'), 'One page of affected imports.'), ...errors },
        },
      },
      '/api/builds': {
        get: {
          operationId: 'opsBuilds',
          summary: 'Which builds of the worker run imports: the current build (and a ramp), every build with its status, workers and open imports (docs/deploys.md)',
          responses: {
            '200': json(ref('OpsBuilds'), 'The worker deployment.'),
            '401': errors['401'],
            '400': errors['400'],
            '503': json(ref('OpsError'), 'Temporal does not answer (`service_unavailable`).'),
          },
        },
      },
      '/api/imports/{supplier}/{external_account_number}': {
        get: {
          operationId: 'opsImportRecord',
          summary: 'The status record of one import, with its links (no error detail: it may quote personal data)',
          parameters: [
            { name: 'supplier', in: 'path', required: true, schema: { type: 'string' } },
            { name: 'external_account_number', in: 'path', required: true, schema: { type: 'string' } },
          ],
          responses: { '200': json(ref('OpsImportRecord'), 'The record.'), ...errors },
        },
      },
    },
    components: {
      securitySchemes: {
        basic: { type: 'http', scheme: 'basic', description: 'Any user name; the password is OPS_TOKEN.' },
        bearer: { type: 'http', scheme: 'bearer', description: 'OPS_TOKEN.' },
      },
      responses: {
        NotAuthenticated: json(ref('OpsError'), 'OPS_TOKEN is set and the request has no token (`not_authenticated`) or a wrong one (`authentication_failed`).'),
      },
      schemas: {
        OpsSummary: plain(SummarySchema),
        OpsAffectedImports: plain(AffectedImportsSchema),
        OpsImportRecord: plain(ImportRecordSchema),
        OpsBuilds: plain(BuildsSchema),
        OpsError: plain(OpsErrorSchema),
        OpsTrancheRequest: plain(TrancheRequestSchema),
        OpsTranche: plain(TrancheSchema),
      },
    },
  };
}
