import type { Knex } from 'knex';
import { notFound } from '../../http/errors';
import { common, externalParam, json, ref, security, supplierParam } from '../../http/openapi';
import { operation } from '../../http/operation';
import { canAccessSupplier } from '../../http/principal';
import { findProcess, toApiRecord } from '../store';
import { IMPORT_PROCESS_SCHEMAS } from './schemas';

/** `GET /v2/data-import/accounts/<supplier>/<external>/`: the import process of an account; a supplier outside the grant is an unknown one. */
export const statusOperation = operation({
  method: 'get',
  path: '/v2/data-import/accounts/{import_supplier_code}/{external_account_number}/',
  handler: (deps: { db: Knex }) => async (ctx) => {
    const { supplier, external } = ctx.params as { supplier: string; external: string };
    ctx.state.logContext = { importSupplier: supplier, externalAccountNumber: external };
    const p = canAccessSupplier(ctx, supplier) ? await findProcess(deps.db, supplier, external) : null;
    if (!p) throw notFound('No import process for this import supplier and external account number.');
    ctx.body = toApiRecord(p);
  },
  schemas: IMPORT_PROCESS_SCHEMAS,
  openapi: {
    operationId: 'getImportStatus',
    tags: ['accounts'],
    summary: 'The import process of an account.',
    security,
    parameters: [supplierParam('import_supplier_code'), externalParam('external_account_number')],
    responses: {
      '200': json(ref('ImportProcess'), 'The import process record.'),
      '404': json(ref('NotFound'), 'No such import process, or the supplier is outside your grant.'),
      ...common(false),
    },
  },
});
