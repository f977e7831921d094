import Router from '@koa/router';
import { Type, type Static } from '@sinclair/typebox';
import type { RouterDeps } from '../deps';
import { assertObject, jsonBody } from '../../http/middleware/jsonBody';
import { canAccessSupplier } from '../../http/principal';
import { accountLogContext } from '../../http/logContext';
import { callerValidator } from '../../suppliers/databaseValidator';
import { findProcess, findProcesses, toApiRecord } from '../../imports/store';
import { createImport, importServiceDeps, validateAccount } from '../../imports/service';
import { bodyChecker } from '../../platform/topUps/validate';
import { notFound } from '../../http/errors';
import { errorShape, v2ErrorBody } from '../../http/middleware/errorShape';

/** At most this many account numbers per bulk status request (one indexed SELECT of bounded size). */
export const MAX_STATUS_NUMBERS = 500;

/** Body of `POST /v2/data-import/accounts/statuses/`; placed in the OpenAPI document as it is. */
export const StatusesRequestSchema = Type.Object(
  {
    import_supplier: Type.String({ minLength: 1, maxLength: 64 }),
    external_account_numbers: Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { minItems: 1, maxItems: MAX_STATUS_NUMBERS }),
  },
  { additionalProperties: false },
);
type StatusesRequest = Static<typeof StatusesRequestSchema>;

/** 400 `validation_error` with every issue of the body (the codes of docs/spec/RULES.md, as the top-ups). */
const checkStatusesBody = bodyChecker<StatusesRequest>(StatusesRequestSchema, () => undefined);

/** The v2 account operations of the spec: validate, create, import status (one account, or many). */
export function importsRouter(deps: RouterDeps): Router {
  const r = new Router({ prefix: '/v2/data-import/accounts' });
  r.use(deps.authenticate);
  // Every 400 in the platform's shape (code, detail and errors), the body's own too: mounted on
  // each route (a router's use() would also wrap the routes of routers mounted after it).
  const body = [errorShape(v2ErrorBody), jsonBody(deps.config.http.bodyLimitBytes, { budget: deps.bodyBudget })];

  r.post('/validate/', ...body, async (ctx) => {
    assertObject(ctx.request.body);
    accountLogContext(ctx, ctx.request.body);
    ctx.body = await validateAccount(callerValidator(deps, ctx), ctx.request.body);
  });

  r.post('/', ...body, async (ctx) => {
    assertObject(ctx.request.body);
    accountLogContext(ctx, ctx.request.body);
    const { warnings, process } = await createImport(importServiceDeps(deps, ctx.state.log), callerValidator(deps, ctx), ctx.request.body);
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

  // The status of many accounts of one supplier in one request and one query (the migrate client
  // follows its imports with it). Each number with an import process answers the representation of
  // the GET above plus its number; the others are listed in not_found, each number once, in the
  // order of the request. A supplier outside the grant is, as on the GET, one with no process; so
  // is a number with a NUL byte (PostgreSQL text cannot hold one: no process can have it, and the
  // GET answers it 404), which is not sent to the query.
  r.post('/statuses/', ...body, async (ctx) => {
    assertObject(ctx.request.body);
    const b = checkStatusesBody(ctx.request.body);
    ctx.state.logContext = { importSupplier: b.import_supplier };
    const numbers = [...new Set(b.external_account_numbers)];
    const storable = numbers.filter((n) => !n.includes('\u0000'));
    const found = canAccessSupplier(ctx, b.import_supplier) ? await findProcesses(deps.db, b.import_supplier, storable) : [];
    const byNumber = new Map(found.map((p) => [p.externalAccountNumber, p]));
    const results = [];
    const notFoundNumbers: string[] = [];
    for (const n of numbers) {
      const p = byNumber.get(n);
      if (p) results.push({ external_account_number: n, ...toApiRecord(p) });
      else notFoundNumbers.push(n);
    }
    ctx.body = { results, not_found: notFoundNumbers };
  });

  return r;
}
