import { v1AccountErrorBody } from '../../http/middleware/errorShape';
import { assertObject } from '../../http/middleware/jsonBody';
import { common, json, plain, ref, security } from '../../http/openapi';
import { operation } from '../../http/operation';
import { canAccessSupplier, principalOf } from '../../http/principal';
import { requestSignal } from '../../http/middleware/timeout';
import type { JsonLimits } from '../../lib/jsonBounds';
import type { PayloadBudget } from '../../lib/payloadBudget';
import { bodyChecker } from '../../http/validation';
import { type ImportDeps, importServiceOf } from './caller';
import { importProcessDoesNotExist } from '../staging';
import { type ProcessRequestBody, ProcessRequestSchema } from './processRequest';
import { accountErrors, accountOfImport, answerOf, conflict } from './v1Shapes';

const checkProcessBody = bodyChecker<ProcessRequestBody>(ProcessRequestSchema);

/** `POST /v1/data-import/account-import-process/process/`: the staged data validated again and its import started, as a v2 create. */
export const processStagedOperation = operation({
  method: 'post',
  path: '/v1/data-import/account-import-process/process/',
  errors: v1AccountErrorBody,
  body: true,
  handler: (deps: ImportDeps & { bodyBudget: PayloadBudget; config: { http: { json: JsonLimits } } }) => async (ctx) => {
    assertObject(ctx.request.body);
    const b = checkProcessBody(ctx.request.body);
    ctx.state.logContext = { importSupplier: b.import_supplier_code, externalAccountNumber: b.external_account_number };
    if (!canAccessSupplier(ctx, b.import_supplier_code)) throw importProcessDoesNotExist();
    const { warnings, process } = await importServiceOf(deps, ctx).process({
      importSupplier: b.import_supplier_code,
      externalAccountNumber: b.external_account_number,
      dryRun: b.dry_run ?? false,
      operationsTeamName: b.operations_team_name,
    }, {
      json: deps.config.http.json,
      admit: (bytes, read) => deps.bodyBudget.admit(bytes, read, { owner: principalOf(ctx)?.organisation, signal: requestSignal(ctx) }),
    });
    ctx.state.logContext = { ...ctx.state.logContext, workflowId: process.workflowId, run: process.run };
    // Scheduled, as a v2 create: the account number follows with the transfer status (COMPLETED).
    ctx.status = 201;
    ctx.body = answerOf(process, warnings);
  },
  schemas: {
    ProcessRequest: plain(ProcessRequestSchema),
    ProcessStarted: accountOfImport(
      "The platform's ProcessAccountImportProcessCreation as this service answers it: the import is scheduled (a durable workflow creates the account, as after a v2 create), so there is no account number yet; the transfer status gives it once COMPLETED.",
    ),
  },
  openapi: {
    operationId: 'processStagedAccount',
    tags: ['platform'],
    summary: 'Process staged account data: validate it again and start its import, exactly as a v2 create does.',
    description:
      'The staged data (or the data of a run that ended without an account) is validated again with today\'s rules and reference data, stored as a new PENDING run and its durable workflow started; follow it with the transfer status or the v2 status operation.',
    security,
    requestBody: { required: true, content: { 'application/json': { schema: ref('ProcessRequest') } } },
    responses: {
      '201': json(ref('ProcessStarted'), 'Scheduled.'),
      '400': accountErrors(
        'a body of the wrong shape (`validation_error`), no staged account for the supplier and number (`import_process_does_not_exist`; a supplier outside your grant too), staged data that fails validation now (`import_process_failed_validation`, `errors` listing the issues), a supplier that is Paused or Complete (`import_supplier_migration_not_ongoing`), an unreadable body (`parse_error`), or an account already imported (`account_import_process_already_imported`).',
      ),
      '409': conflict,
      ...common(true),
    },
  },
});
