import Router from '@koa/router';
import type { RouterDeps } from '../deps';
import { jsonBody } from '../middleware/jsonBody';
import { canAccessSupplier } from '../principal';
import { databaseValidator } from '../../account/databaseValidator';
import { findProcess, toApiRecord } from '../../imports/store';
import { assertObject, createImport, validateAccount } from '../../imports/service';
import { notFound } from '../errors';

/** The v2 account operations of the spec: validate, create, import status. */
export function importsRouter(deps: RouterDeps): Router {
  const r = new Router({ prefix: '/v2/data-import/accounts' });
  r.use(deps.authenticate);
  const body = jsonBody(deps.config.http.bodyLimitBytes);

  // The validator sees only the caller's suppliers: another organisation's is "not found".
  const validatorFor = (ctx: Parameters<typeof canAccessSupplier>[0]) =>
    databaseValidator({
      db: deps.db,
      cache: deps.referenceData,
      documentStore: deps.documentStore,
      allowSupplier: (code) => canAccessSupplier(ctx, code),
    });

  const context = (ctx: Parameters<typeof canAccessSupplier>[0], b: unknown) => {
    const acc = b && typeof b === 'object' ? ((b as { payload?: unknown }).payload ?? b) : undefined;
    if (acc && typeof acc === 'object') {
      const a = acc as Record<string, unknown>;
      ctx.state.logContext = {
        importSupplier: typeof a.import_supplier === 'string' ? a.import_supplier : undefined,
        externalAccountNumber: typeof a.external_account_number === 'string' ? a.external_account_number : undefined,
      };
    }
  };

  r.post('/validate/', body, async (ctx) => {
    assertObject(ctx.request.body);
    context(ctx, ctx.request.body);
    ctx.body = await validateAccount(validatorFor(ctx), ctx.request.body);
  });

  r.post('/', body, async (ctx) => {
    assertObject(ctx.request.body);
    context(ctx, ctx.request.body);
    const { warnings, process } = await createImport(
      { db: deps.db, temporal: deps.temporal, taskQueue: deps.config.temporal.taskQueue, log: ctx.state.log },
      validatorFor(ctx),
      ctx.request.body,
    );
    ctx.state.logContext = { ...ctx.state.logContext, workflowId: process.workflowId, run: process.run };
    ctx.status = 201;
    ctx.body = { warnings };
  });

  r.get('/:supplier/:external/', async (ctx) => {
    const { supplier, external } = ctx.params as { supplier: string; external: string };
    ctx.state.logContext = { importSupplier: supplier, externalAccountNumber: external };
    const p = canAccessSupplier(ctx, supplier) ? await findProcess(deps.db, supplier, external) : null;
    if (!p) throw notFound('No import process for this import supplier and external account number.');
    ctx.body = toApiRecord(p);
  });

  return r;
}
