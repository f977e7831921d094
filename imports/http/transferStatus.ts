import type { Knex } from 'knex';
import { notFound } from '../../http/errors';
import { common, externalParam, json, ref, security, supplierParam } from '../../http/openapi';
import { operation } from '../../http/operation';
import { canAccessSupplier } from '../../http/principal';
import { accountTransferStatus, TRANSFER_STATUSES } from '../transferStatus';
import { NO_QUERY } from '../../http/validation';
import { METER_POINT_STATUS } from '../../registration';

/** `GET /v1/data-import/account-transfer-status/<supplier>/<external>/`: whether the account exists, and its meter points' registration statuses. */
export const transferStatusOperation = operation({
  method: 'get',
  path: '/v1/data-import/account-transfer-status/{import_supplier_code}/{external_account_number}/',
  query: NO_QUERY,
  handler: (deps: { db: Knex }) => async (ctx) => {
    const { supplier, external } = ctx.params as { supplier: string; external: string };
    ctx.state.logContext = { importSupplier: supplier, externalAccountNumber: external };
    const record = canAccessSupplier(ctx, supplier) ? await accountTransferStatus(deps.db, supplier, external) : null;
    if (!record) throw notFound('No account import process for this import supplier and external account number; check both codes.');
    ctx.body = record;
  },
  schemas: {
    ...METER_POINT_STATUS,
    AccountTransferStatus: {
      type: 'object',
      description: "The platform's AccountTransferStatus, with the meter points' registration statuses beside it.",
      required: ['status', 'kraken_account_number', 'account_number', 'meter_points'],
      additionalProperties: false,
      properties: {
        status: {
          type: 'string',
          enum: [...TRANSFER_STATUSES],
          description:
            'COMPLETED: the account exists (PROCESSED). IN_PROGRESS: a run is under way (PENDING, IN_PROGRESS, dry runs too). UNKNOWN: no account and no run under way: staged and not processed, or the last run ended without an account (ERRORED, CANCELLED, a dry run).',
        },
        kraken_account_number: { type: 'string', description: 'The platform account number once COMPLETED; the empty string before.' },
        account_number: { type: 'string', deprecated: true, description: "The platform's deprecated copy of kraken_account_number." },
        meter_points: { type: 'array', items: { $ref: '#/components/schemas/MeterPointStatus' }, description: 'Each meter point of the account with its registration status (as meterpoint-statuses answers them); empty until COMPLETED.' },
      },
    },
  },
  openapi: {
    operationId: 'getAccountTransferStatus',
    tags: ['platform'],
    summary: 'The transfer status of an account import: whether its account exists, and its meter points\' registration statuses.',
    security,
    parameters: [supplierParam('import_supplier_code'), externalParam('external_account_number')],
    responses: {
      '200': json(ref('AccountTransferStatus'), 'The import process exists (staged, under way, ended, or imported).'),
      '400': json(ref('QueryValidationFailed'), 'An unknown query parameter (`validation_error`).'),
      '404': json(ref('NotFound'), 'No import process for the supplier and number, or the supplier is outside your grant.'),
      ...common(false),
    },
  },
});
