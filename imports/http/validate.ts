import { accountLogContext } from '../../http/logContext';
import { v2ErrorBody } from '../../http/middleware/errorShape';
import { assertObject } from '../../http/middleware/jsonBody';
import { common, json, ref, security } from '../../http/openapi';
import { operation } from '../../http/operation';
import { type ImportDeps, importServiceOf } from './caller';
import { accountBody, WARNINGS_SCHEMAS } from './schemas';

/** `POST /v2/data-import/accounts/validate/`: every issue of the account, or its warnings; creates nothing. */
export const validateOperation = operation({
  method: 'post',
  path: '/v2/data-import/accounts/validate/',
  errors: v2ErrorBody,
  body: true,
  handler: (deps: ImportDeps) => async (ctx) => {
    assertObject(ctx.request.body);
    accountLogContext(ctx, ctx.request.body);
    ctx.body = await importServiceOf(deps, ctx).validate(ctx.request.body);
  },
  schemas: WARNINGS_SCHEMAS,
  openapi: {
    operationId: 'validateAccount',
    tags: ['accounts'],
    summary: 'Validate an account; creates nothing.',
    security,
    requestBody: accountBody,
    responses: {
      '200': json(ref('Warnings'), 'Valid; the warnings do not stop an import.'),
      '400': json({ oneOf: [ref('AccountValidationFailed'), ref('V2ParseError')] }, 'Every error of the payload (`account_failed_validation`), or an unreadable body (`parse_error`, `errors` empty). A supplier outside your grant is reported as `import_supplier_not_found`.'),
      ...common(true),
    },
  },
});
