import type { Knex } from 'knex';
import { loadAccountsByExternal } from '../../db/stores/accountStore';
import { notFound } from '../../http/errors';
import { common, externalParam, json, ref, security, supplierParam } from '../../http/openapi';
import { operation } from '../../http/operation';
import { canAccessSupplier } from '../../http/principal';
import { storable } from './bulk';

/**
 * `GET /v2/data-import/accounts/<supplier>/<external>/account/` (docs/bulk-migration.md,
 * "Sign-off"): the account as stored, read back from the account tables (not the stored payload,
 * which retention drops) in the create body's shape. A supplier outside the grant has no accounts.
 */
export const importedAccountOperation = operation({
  method: 'get',
  path: '/v2/data-import/accounts/{import_supplier_code}/{external_account_number}/account/',
  handler: (deps: { db: Knex }) => async (ctx) => {
    const { supplier, external } = ctx.params as { supplier: string; external: string };
    ctx.state.logContext = { importSupplier: supplier, externalAccountNumber: external };
    const visible = canAccessSupplier(ctx, supplier) && storable(supplier) && storable(external);
    const account = visible ? (await loadAccountsByExternal(deps.db, supplier, [external])).get(external) : undefined;
    if (!account) throw notFound('No imported account for this import supplier and external account number.');
    ctx.body = account;
  },
  openapi: {
    operationId: 'getImportedAccount',
    tags: ['accounts'],
    summary: 'The imported account as stored, read back from the account tables, in the shape of the create body.',
    description:
      'Not the payload that was sent (retention drops it): the account the tables hold. Fields without data are absent (an empty optional array reads back as absent, as does null); phone numbers, postcodes and date-times are in the form the service stores them (docs/bulk-migration.md, "The canonical form"). Its canonical form digests to the `digest` of the bulk digest operation.',
    security,
    parameters: [supplierParam('import_supplier_code'), externalParam('external_account_number')],
    responses: {
      '200': json(ref('Account'), 'The account as stored.'),
      '404': json(ref('NotFound'), 'No imported account (never imported, not PROCESSED), or the supplier is outside your grant.'),
      ...common(false),
    },
  },
});
