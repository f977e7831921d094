import { Type, type Static } from '@sinclair/typebox';
import type { Knex } from 'knex';
import { loadAccountsByExternal } from '../../db/stores/accountStore';
import { notFound } from '../../http/errors';
import { common, externalParam, json, ref, security, supplierParam } from '../../http/openapi';
import { operation } from '../../http/operation';
import { canAccessSupplier } from '../../http/principal';
import { isStorableText } from '../../account/storableText';
import { maskBankDetails } from '../../account/bankDetails';
import { HttpError } from '../../http/errors';
import { principalOf } from '../../http/principal';

/** `?reveal=bank_details`: the only query parameter, with its only value (another: `invalid_choice`). */
const RevealQuery = Type.Object(
  {
    reveal: Type.Optional(
      Type.Unsafe<'bank_details'>({
        type: 'string',
        enum: ['bank_details'],
        description: "bank_details: the payment instructions' sort codes and account numbers in clear (the key needs the permission: `data-import api-keys permit <id> --reveal-bank-details`).",
      }),
    ),
  },
  { additionalProperties: false },
);

/**
 * `GET /v2/data-import/accounts/<supplier>/<external>/account/` (docs/bulk-migration.md,
 * "Sign-off"): the account as stored, read back from the account tables (not the stored payload,
 * which retention drops) in the create body's shape. A supplier outside the grant has no accounts.
 */
export const importedAccountOperation = operation({
  method: 'get',
  path: '/v2/data-import/accounts/{import_supplier_code}/{external_account_number}/account/',
  query: RevealQuery,
  handler: (deps: { db: Knex }) => async (ctx) => {
    const { supplier, external } = ctx.params as { supplier: string; external: string };
    ctx.state.logContext = { importSupplier: supplier, externalAccountNumber: external };
    const reveal = (ctx.state.query as Static<typeof RevealQuery>).reveal === 'bank_details';
    if (reveal && principalOf(ctx)?.revealBankDetails !== true) {
      throw new HttpError('permission_denied', 'This API key may not read bank details in clear (data-import api-keys permit --reveal-bank-details).');
    }
    const visible = canAccessSupplier(ctx, supplier) && isStorableText(supplier) && isStorableText(external);
    const account = visible ? (await loadAccountsByExternal(deps.db, supplier, [external])).get(external) : undefined;
    if (!account) throw notFound('No imported account for this import supplier and external account number.');
    // Masked unless asked for and allowed: only the answer; the stored account and its digest keep the clear values.
    ctx.body = reveal ? account : maskBankDetails(account);
  },
  openapi: {
    operationId: 'getImportedAccount',
    tags: ['accounts'],
    summary: 'The imported account as stored, read back from the account tables, in the shape of the create body.',
    description:
      'Not the payload that was sent (retention drops it): the account the tables hold. Fields without data are absent (an empty optional array reads back as absent, as does null); phone numbers, postcodes and date-times are in the form the service stores them (docs/bulk-migration.md, "The canonical form"). Its canonical form digests to the `digest` of the bulk digest operation. A payment instruction\'s bank details are masked (`sort_code` but its last 2 characters, `bank_account_number` but its last 4, replaced by `*`) unless `reveal=bank_details` is asked by a key given that permission; the digest always covers the clear values.',
    security,
    parameters: [supplierParam('import_supplier_code'), externalParam('external_account_number')],
    responses: {
      '200': json(ref('Account'), 'The account as stored, its bank details masked unless revealed.'),
      '400': json(ref('QueryValidationFailed'), 'An unknown query parameter, or a `reveal` other than bank_details (`validation_error`).'),
      '403': json(ref('PermissionDenied'), '`reveal=bank_details` asked by a key without that permission.'),
      '404': json(ref('NotFound'), 'No imported account (never imported, not PROCESSED), or the supplier is outside your grant.'),
      ...common(false),
    },
  },
});
