import { MAX_PAGE } from './listing/params';
import { METER_POINT_STATUSES } from './meterPointStatuses/statuses';

/** What api/openapi.ts lends the platform's operations, so both parts of the document agree. */
export interface OpenApiHelpers {
  ref(name: string): { $ref: string };
  json(schema: unknown, description: string, headers?: Record<string, unknown>): unknown;
  common(withBody: boolean): Record<string, unknown>;
  supplierParam(name: string): unknown;
  externalParam(name: string): unknown;
  security: unknown;
}

/** Component schemas of the platform's operations (merged into components.schemas). */
export function platformSchemas() {
  return {
    PlatformImportProcess: {
      type: 'object',
      description: "The platform's ImportProcess item.",
      required: ['external_account_number', 'kraken_account_number', 'account_created_at'],
      additionalProperties: false,
      properties: {
        external_account_number: { type: 'string', maxLength: 128 },
        kraken_account_number: { type: ['string', 'null'], description: 'The platform account number; null while pending.' },
        account_created_at: { type: ['string', 'null'], format: 'date-time', description: 'When the account was created; null while pending.' },
      },
    },
    MeterPointStatus: {
      type: 'object',
      required: ['mpxn', 'status'],
      additionalProperties: false,
      properties: {
        mpxn: { type: 'string', description: 'MPAN or MPRN.' },
        status: {
          type: 'string',
          enum: [...METER_POINT_STATUSES],
          description: 'The platform enumeration. Reached here: PRE_REGISTRATION (not marked), UNDERGOING_REGISTRATION (marked by send-registration-flows), REGISTRATION_REQUESTED (flow sent), REGISTRATION_ACCEPTED, REGISTRATION_REJECTED.',
        },
      },
    },
    MeterPointStatusNotFound: {
      type: 'object',
      required: ['detail', 'code', 'error'],
      additionalProperties: false,
      properties: {
        detail: { type: 'string' },
        code: { type: 'string', enum: ['not_found'] },
        error: { type: 'string', description: "The platform's field; the same text as detail." },
      },
    },
  };
}

const LISTINGS = [
  ['all', 'listAllImportProcesses', 'Every import process of the supplier, pending or imported.'],
  ['pending', 'listPendingImportProcesses', 'Import processes without an account yet (every status but PROCESSED).'],
  ['imported', 'listImportedImportProcesses', 'Import processes whose account has been created (PROCESSED).'],
] as const;

/** The paths of the platform's operations (merged into paths). */
export function platformPaths(h: OpenApiHelpers): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const [listing, operationId, summary] of LISTINGS) {
    paths[`/v1/data-import/${listing}-account-import-processes/{import_supplier_code}/`] = {
      get: {
        operationId,
        tags: ['platform'],
        summary,
        description:
          'Without parameters: the complete listing as one JSON array, streamed in id order from a database cursor (bounded memory however long the book). With `limit`: one page, and `Link: <…>; rel="next"` when there is more; pass its `after` on.',
        security: h.security,
        parameters: [
          h.supplierParam('import_supplier_code'),
          { name: 'limit', in: 'query', required: false, description: `Page size, 1-${MAX_PAGE}.`, schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE } },
          { name: 'after', in: 'query', required: false, description: 'Opaque cursor from the previous page\'s Link header.', schema: { type: 'string' } },
        ],
        responses: {
          '200': h.json({ type: 'array', items: h.ref('PlatformImportProcess') }, 'The import processes, oldest first.', {
            Link: { description: 'With `limit`, when there is a next page: `<path?limit=n&after=cursor>; rel="next"`.', schema: { type: 'string' } },
          }),
          '400': h.json(h.ref('QueryValidationFailed'), 'A malformed or unknown query parameter (`validation_error`).'),
          '404': h.json(h.ref('NotFound'), 'No such import supplier, or the supplier is outside your grant.'),
          ...h.common(false),
        },
      },
    };
  }
  paths['/v1/data-import/meterpoint-statuses-for-account/{import_supplier_code}/{external_account_number}/'] = {
    get: {
      operationId: 'getMeterPointStatuses',
      tags: ['platform'],
      summary: 'Each MPAN and MPRN of an imported account with its industry status.',
      security: h.security,
      parameters: [h.supplierParam('import_supplier_code'), h.externalParam('external_account_number')],
      responses: {
        '200': h.json({ type: 'array', items: h.ref('MeterPointStatus') }, 'The meter points in payload order.'),
        '400': h.json(h.ref('QueryValidationFailed'), 'An unknown query parameter (`validation_error`).'),
        '404': h.json(h.ref('MeterPointStatusNotFound'), 'No imported account (unknown, only staged, or the supplier is outside your grant), or no meter points.'),
        ...h.common(false),
      },
    },
  };
  return paths;
}
