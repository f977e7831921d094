import { accountLogContext } from '../../http/logContext';
import { v2ErrorBody } from '../../http/middleware/errorShape';
import { assertObject } from '../../http/middleware/jsonBody';
import { common, json, ref, security } from '../../http/openapi';
import { operation } from '../../http/operation';
import { type ImportDeps, importServiceOf } from './caller';
import { accountBody, WARNINGS_SCHEMAS } from './schemas';

export type { ImportDeps } from './caller';

/** `POST /v2/data-import/accounts/`: validate, then schedule the import (docs/spec/DESIGN.md "Flow of one import"). */
export const createOperation = operation({
  method: 'post',
  path: '/v2/data-import/accounts/',
  // Under the router's prefix the create was `/`: routed with and without the trailing slash, and so labelled in the metrics.
  route: '/v2/data-import/accounts',
  errors: v2ErrorBody,
  body: true,
  handler: (deps: ImportDeps) => async (ctx) => {
    assertObject(ctx.request.body);
    accountLogContext(ctx, ctx.request.body);
    const { warnings, process } = await importServiceOf(deps, ctx).create(ctx.request.body);
    ctx.state.logContext = { ...ctx.state.logContext, workflowId: process.workflowId, run: process.run };
    ctx.status = 201;
    ctx.body = { warnings };
  },
  schemas: WARNINGS_SCHEMAS,
  openapi: {
    operationId: 'createAccount',
    tags: ['accounts'],
    summary: 'Validate, then schedule the import of an account.',
    security,
    requestBody: accountBody,
    responses: {
      '201': json(ref('Warnings'), 'Scheduled; follow it with the status operation.'),
      '400': json({ oneOf: [ref('ImportProcessError'), ref('AlreadyImported'), ref('V2ParseError')] }, 'Invalid (`import_process_failed_validation`: run validate for the details), supplier not accepting migrations (`import_supplier_migration_not_ongoing`), already imported (`account_import_process_already_imported`), or an unreadable body; each with `code`, `detail` and `errors` (empty), as the platform\'s v2 400.'),
      '409': json(ref('ImportProcessConflict'), 'An import of this account is PENDING or IN_PROGRESS (`import_process_in_progress`).'),
      ...common(true),
    },
  },
});
