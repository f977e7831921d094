import type { Knex } from 'knex';
import { v2ErrorBody } from '../../http/middleware/errorShape';
import { assertObject } from '../../http/middleware/jsonBody';
import { common, json, ref, security } from '../../http/openapi';
import { operation } from '../../http/operation';
import { bulkAnswer } from './bulk';
import { BULK_SCHEMAS, bulkAnswerSchema, MAX_STATUS_NUMBERS } from './schemas';

/**
 * `POST /v2/data-import/accounts/statuses/`: the status of many accounts of one supplier in one
 * request and one query (the migrate client follows its imports with it); each number with an
 * import process answers the representation of the status operation plus its number.
 */
export const statusesOperation = operation({
  method: 'post',
  path: '/v2/data-import/accounts/statuses/',
  errors: v2ErrorBody,
  body: true,
  handler: (deps: { db: Knex }) => async (ctx) => {
    assertObject(ctx.request.body);
    ctx.body = await bulkAnswer(deps.db, ctx, async () => () => ({}), { unstorableSupplierIsUnknown: false });
  },
  schemas: {
    ...BULK_SCHEMAS,
    ImportStatuses: bulkAnswerSchema('ImportProcessOfAccount', MAX_STATUS_NUMBERS),
  },
  openapi: {
    operationId: 'getImportStatuses',
    tags: ['accounts'],
    summary: `The import processes of up to ${MAX_STATUS_NUMBERS} accounts of one supplier in one request.`,
    description:
      'Each requested number with an import process answers the record of the status operation plus `external_account_number`; the others are listed in `not_found` (a number with U+0000 too: no import process can have it). Each number is answered once, in the order of the request. A supplier outside your grant answers as one with no import processes: every number in `not_found`.',
    security,
    requestBody: { required: true, content: { 'application/json': { schema: ref('ImportStatusesRequest') } } },
    responses: {
      '200': json(ref('ImportStatuses'), 'The records found, and the numbers without an import process.'),
      '400': json({ oneOf: [ref('QueryValidationFailed'), ref('V2ParseError')] }, `A body of the wrong shape (\`validation_error\` with every issue: \`unknown_field\`, \`required\`, \`invalid\` for a wrong type or no number, \`blank\`, \`max_length\` for more than ${MAX_STATUS_NUMBERS} numbers or a value too long), or an unreadable body (\`parse_error\`).`),
      ...common(true),
    },
  },
});
