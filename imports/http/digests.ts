import type { Knex } from 'knex';
import { accountDigests } from '../../db/stores/accountDigests';
import { v2ErrorBody } from '../../http/middleware/errorShape';
import { assertObject } from '../../http/middleware/jsonBody';
import { common, json, ref, security } from '../../http/openapi';
import { operation } from '../../http/operation';
import { bulkAnswer } from './bulk';
import { BULK_SCHEMAS, bulkAnswerSchema, digestRecordSchema, MAX_STATUS_NUMBERS } from './schemas';

/** At most this many account numbers per bulk digest request: as the bulk status operation. */
const MAX_DIGEST_NUMBERS = MAX_STATUS_NUMBERS;

/**
 * `POST /v2/data-import/accounts/digests/` (docs/bulk-migration.md, "Sign-off"): the bulk status
 * answer with the digest of each account as stored (null when no account exists: not PROCESSED).
 * One query for the processes, one for the stored digests; an account without one of this build's
 * form is read back and hashed, and its digest stored (db/stores/accountDigests.ts), in one transaction.
 */
export const digestsOperation = operation({
  method: 'post',
  path: '/v2/data-import/accounts/digests/',
  errors: v2ErrorBody,
  body: true,
  handler: (deps: { db: Knex }) => async (ctx) => {
    assertObject(ctx.request.body);
    ctx.body = await bulkAnswer(
      deps.db,
      ctx,
      async (found, supplier) => {
        const withAccount = found.filter((p) => p.status === 'PROCESSED').map((p) => p.externalAccountNumber);
        const digests = withAccount.length > 0 ? await deps.db.transaction((trx) => accountDigests(trx, supplier, withAccount)) : new Map<string, string>();
        return (p) => ({ digest: digests.get(p.externalAccountNumber) ?? null });
      },
      { unstorableSupplierIsUnknown: true },
    );
  },
  schemas: {
    ...BULK_SCHEMAS,
    AccountDigestOfAccount: digestRecordSchema,
    AccountDigests: bulkAnswerSchema('AccountDigestOfAccount', MAX_DIGEST_NUMBERS),
  },
  openapi: {
    operationId: 'getAccountDigests',
    tags: ['accounts'],
    summary: `The import status and the digest of the account as stored, for up to ${MAX_DIGEST_NUMBERS} accounts of one supplier in one request.`,
    description:
      'Each requested number with an import process answers the record of the status operation plus `external_account_number` and `digest` (null when no account exists); the others are listed in `not_found` (a number with U+0000 too). Each number is answered once, in the order of the request. A supplier outside your grant answers as one with no import processes: every number in `not_found`. `data-import reconcile` compares the digests with those of the book. The digest is the one stored with the account, computed from its rows by the workers after it was created and forgotten whenever any of its rows changes, else computed from the rows now (docs/bulk-migration.md, "Stored digests").',
    security,
    requestBody: { required: true, content: { 'application/json': { schema: ref('ImportStatusesRequest') } } },
    responses: {
      '200': json(ref('AccountDigests'), 'The records found, with their digests, and the numbers without an import process.'),
      '400': json({ oneOf: [ref('QueryValidationFailed'), ref('V2ParseError')] }, `A body of the wrong shape (\`validation_error\` with every issue: \`unknown_field\`, \`required\`, \`invalid\` for a wrong type or no number, \`blank\`, \`max_length\` for more than ${MAX_DIGEST_NUMBERS} numbers or a value too long), or an unreadable body (\`parse_error\`).`),
      ...common(true),
    },
  },
});
