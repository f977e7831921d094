import type { Knex } from 'knex';
import { HttpError } from '../../http/errors';
import { common, externalParam, json, ref, security, supplierParam } from '../../http/openapi';
import { operation } from '../../http/operation';
import { canAccessSupplier } from '../../http/principal';
import { METER_POINT_STATUSES, meterPointStatuses } from '../meterPointStatuses';
import { NO_QUERY } from '../../http/validation';

/** A meter point with its registration status (also in the transfer status' answer). */
export const METER_POINT_STATUS = {
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
};

/** `GET /v1/data-import/meterpoint-statuses-for-account/<supplier>/<external>/`: each meter point of an imported account with its status. */
export const meterPointStatusesOperation = operation({
  method: 'get',
  path: '/v1/data-import/meterpoint-statuses-for-account/{import_supplier_code}/{external_account_number}/',
  query: NO_QUERY,
  handler: (deps: { db: Knex }) => async (ctx) => {
    const { supplier, external } = ctx.params as { supplier: string; external: string };
    ctx.state.logContext = { importSupplier: supplier, externalAccountNumber: external };
    const items = canAccessSupplier(ctx, supplier) ? await meterPointStatuses(deps.db, supplier, external) : null;
    if (!items || items.length === 0) {
      // The platform's 404 carries `error`; ours adds it beside the usual detail and code.
      const detail = `No meterpoints found for ${external}.`;
      throw new HttpError('not_found', detail, { error: detail });
    }
    ctx.body = items;
  },
  schemas: {
    ...METER_POINT_STATUS,
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
  },
  openapi: {
    operationId: 'getMeterPointStatuses',
    tags: ['platform'],
    summary: 'Each MPAN and MPRN of an imported account with its industry status.',
    security,
    parameters: [supplierParam('import_supplier_code'), externalParam('external_account_number')],
    responses: {
      '200': json({ type: 'array', items: ref('MeterPointStatus') }, 'The meter points in payload order.'),
      '400': json(ref('QueryValidationFailed'), 'An unknown query parameter (`validation_error`).'),
      '404': json(ref('MeterPointStatusNotFound'), 'No imported account (unknown, only staged, or the supplier is outside your grant), or no meter points.'),
      ...common(false),
    },
  },
});
