import { accountLogContext } from '../../http/logContext';
import { v1AccountErrorBody } from '../../http/middleware/errorShape';
import { assertObject } from '../../http/middleware/jsonBody';
import { common, json, ref, security } from '../../http/openapi';
import { operation } from '../../http/operation';
import { type ImportDeps, importServiceOf } from './caller';
import { accountErrors, accountOfImport, answerOf, bareAccountBody, conflict } from './v1Shapes';

/** `POST /v1/data-import/account-import-process/create-or-update/`: the account stored and validated, STAGED, not imported. */
export const stageAccountOperation = operation({
  method: 'post',
  path: '/v1/data-import/account-import-process/create-or-update/',
  errors: v1AccountErrorBody,
  body: true,
  handler: (deps: ImportDeps) => async (ctx) => {
    assertObject(ctx.request.body);
    accountLogContext(ctx, ctx.request.body);
    const { created, warnings, process } = await importServiceOf(deps, ctx).stage(ctx.request.body);
    ctx.status = created ? 201 : 200;
    ctx.body = answerOf(process, warnings);
  },
  schemas: { StagedAccount: accountOfImport("The platform's CreateOrUpdateAccountImportProcess, with the warnings.") },
  openapi: {
    operationId: 'stageAccount',
    tags: ['platform'],
    summary: 'Stage an account: store and validate it without importing it; update it as often as wanted until it is processed.',
    description: 'Validated as a v2 create validates (the supplier must be Ongoing). Staged, the import answers STAGED on the v2 status operation and is listed as pending; no workflow runs until process.',
    security,
    requestBody: bareAccountBody,
    responses: {
      '200': json(ref('StagedAccount'), 'Updated: the account had been staged (or imported without success) before.'),
      '201': json(ref('StagedAccount'), 'Staged for the first time.'),
      '400': accountErrors(
        'every error of the account (`account_failed_validation`), a supplier that is Paused or Complete (`import_supplier_migration_not_ongoing`), an unreadable body (`parse_error`), or an account already imported (`account_import_process_already_imported`).',
      ),
      '409': conflict,
      ...common(true),
    },
  },
});
