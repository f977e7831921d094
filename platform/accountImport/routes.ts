import Router from '@koa/router';
import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import type { Config } from '../../lib/config';
import type { ReferenceDataCache } from '../../account/referenceDataCache';
import type { DocumentStore } from '../../account/documents';
import type { RouteDeps } from '../../http/deps';
import { notFound } from '../../http/errors';
import { accountLogContext } from '../../http/logContext';
import { errorShape, v1AccountErrorBody } from '../../http/middleware/errorShape';
import { assertObject, jsonBody } from '../../http/middleware/jsonBody';
import { canAccessSupplier } from '../../http/principal';
import type { ImportProcess } from '../../imports/store';
import type { Issue } from '../../account/issues';
import { importServiceDeps } from '../../imports/service';
import { importProcessDoesNotExist, processStaged, stageAccount, validateBareAccount } from '../../imports/staging';
import { callerValidator } from '../../suppliers/databaseValidator';
import { bodyChecker } from '../topUps/validate';
import { rejectQueryParameters } from '../noQuery';
import { type ProcessRequestBody, ProcessRequestSchema } from './schemas';
import { checkPaymentInstructionBody, createPaymentInstruction, paymentInstructionErrorBody } from './paymentInstruction';
import { accountTransferStatus } from './transferStatus';

const checkProcessBody = bodyChecker<ProcessRequestBody>(ProcessRequestSchema, () => undefined);

/** The answer of create-or-update and of process (the OpenAPI document's StagedAccount, ProcessStarted). */
const answerOf = (p: ImportProcess, warnings: Issue[]) => ({ external_account_number: p.externalAccountNumber, import_supplier_code: p.importSupplier, warnings });

export interface AccountImportRouteDeps extends RouteDeps {
  db: Knex;
  config: Config;
  temporal: Client;
  referenceData: ReferenceDataCache;
  documentStore?: DocumentStore;
}

/**
 * The platform's v1 account import operations (docs/api.md, "Staged imports"): validate-account,
 * the staged import (create-or-update, then process), the transfer status and the payment
 * instruction of an imported account (paymentInstruction.ts). Staging and
 * processing go through the import service (imports/staging.ts): the same validation, row lock,
 * run, workflow start and sweeper as a v2 create. Same authentication and grants as every
 * operation: another organisation's supplier is an unknown one.
 */
export function accountImportRouter(deps: AccountImportRouteDeps): Router {
  const r = new Router({ prefix: '/v1/data-import' });
  r.use(deps.authenticate);
  // Every 400 in the platform's shapes of these operations (AccountAlreadyImportedResponse or a
  // DRFError), the body's own too; mounted on each route, as the top-ups do.
  const body = [errorShape(v1AccountErrorBody), jsonBody(deps.config.http.bodyLimitBytes, { budget: deps.bodyBudget })];

  r.post('/validate-account/', ...body, async (ctx) => {
    assertObject(ctx.request.body);
    accountLogContext(ctx, ctx.request.body);
    const { account, warnings } = await validateBareAccount(deps.db, callerValidator(deps, ctx), ctx.request.body);
    // The platform answers the validated data; its warnings beside it (an Account has no field `warnings`).
    ctx.body = { ...account, warnings };
  });

  r.post('/account-import-process/create-or-update/', ...body, async (ctx) => {
    assertObject(ctx.request.body);
    accountLogContext(ctx, ctx.request.body);
    const { created, warnings, process } = await stageAccount(deps.db, callerValidator(deps, ctx), ctx.request.body);
    ctx.status = created ? 201 : 200;
    ctx.body = answerOf(process, warnings);
  });

  r.post('/account-import-process/process/', ...body, async (ctx) => {
    assertObject(ctx.request.body);
    const b = checkProcessBody(ctx.request.body);
    ctx.state.logContext = { importSupplier: b.import_supplier_code, externalAccountNumber: b.external_account_number };
    if (!canAccessSupplier(ctx, b.import_supplier_code)) throw importProcessDoesNotExist();
    const { warnings, process } = await processStaged(importServiceDeps(deps, ctx.state.log), callerValidator(deps, ctx), {
      importSupplier: b.import_supplier_code,
      externalAccountNumber: b.external_account_number,
      dryRun: b.dry_run ?? false,
      operationsTeamName: b.operations_team_name,
    });
    ctx.state.logContext = { ...ctx.state.logContext, workflowId: process.workflowId, run: process.run };
    // Scheduled, as a v2 create: the account number follows with the transfer status (COMPLETED).
    ctx.status = 201;
    ctx.body = answerOf(process, warnings);
  });

  // The platform's CreatePaymentInstructionError for every 400 of this one, the body's own too.
  r.post('/payment-instruction/create/', errorShape(paymentInstructionErrorBody), jsonBody(deps.config.http.bodyLimitBytes, { budget: deps.bodyBudget }), async (ctx) => {
    assertObject(ctx.request.body);
    const b = checkPaymentInstructionBody(ctx.request.body);
    ctx.state.logContext = { importSupplier: b.import_supplier, externalAccountNumber: b.external_account_number };
    ctx.status = 201;
    ctx.body = await createPaymentInstruction(deps.db, ctx, b);
  });

  r.get('/account-transfer-status/:supplier/:external/', async (ctx) => {
    const { supplier, external } = ctx.params as { supplier: string; external: string };
    ctx.state.logContext = { importSupplier: supplier, externalAccountNumber: external };
    rejectQueryParameters(ctx);
    const record = canAccessSupplier(ctx, supplier) ? await accountTransferStatus(deps.db, supplier, external) : null;
    if (!record) throw notFound('No account import process for this import supplier and external account number; check both codes.');
    ctx.body = record;
  });

  return r;
}
