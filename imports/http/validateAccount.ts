import { accountLogContext } from '../../http/logContext';
import { v1AccountErrorBody } from '../../http/middleware/errorShape';
import { assertObject } from '../../http/middleware/jsonBody';
import { common, json, ref, security } from '../../http/openapi';
import { operation } from '../../http/operation';
import { type ImportDeps, importServiceOf } from './caller';
import { accountErrors, bareAccountBody, WARNINGS } from './v1Shapes';

/** `POST /v1/data-import/validate-account/`: the bare Account under the rules of v2 validate; valid, the account as validated with its warnings. */
export const validateAccountOperation = operation({
  method: 'post',
  path: '/v1/data-import/validate-account/',
  errors: v1AccountErrorBody,
  body: true,
  handler: (deps: ImportDeps) => async (ctx) => {
    assertObject(ctx.request.body);
    accountLogContext(ctx, ctx.request.body);
    const { account, warnings } = await importServiceOf(deps, ctx).validateBare(ctx.request.body);
    // The platform answers the validated data; its warnings beside it (an Account has no field `warnings`).
    ctx.body = { ...account, warnings };
  },
  schemas: (components) => {
    const account = components.Account as Record<string, unknown>;
    return {
      ValidatedAccount: {
        ...account,
        description: "The platform's answer of validate-account, the validated data: the Account as this service stores it (phone numbers and postcodes normalised), and its `warnings` beside its fields.",
        required: [...((account.required as string[] | undefined) ?? []), 'warnings'],
        properties: { ...(account.properties as Record<string, unknown>), warnings: WARNINGS },
      },
    };
  },
  openapi: {
    operationId: 'validateAccountV1',
    tags: ['platform'],
    summary: 'Validate an account under the rules of v2 validate; creates nothing.',
    security,
    requestBody: bareAccountBody,
    responses: {
      '200': json(ref('ValidatedAccount'), 'Valid: the validated account, with its warnings.'),
      '400': accountErrors(
        'every error of the account (`account_failed_validation`, `errors` listing them; a supplier outside your grant is `import_supplier_not_found`), an unreadable body (`parse_error`), or an account already imported (`account_import_process_already_imported`).',
      ),
      ...common(true),
    },
  },
});
