import Router from '@koa/router';
import type { Context } from 'koa';
import type { Knex } from 'knex';
import type { Config } from '../../lib/config';
import type { DocumentStore } from '../../account/documents';
import type { RouteDeps } from '../../http/deps';
import { assertObject, jsonBody } from '../../http/middleware/jsonBody';
import { errorShape, nonFieldErrorsBody } from '../../http/middleware/errorShape';
import { lockImportedAccount, topUpSupplier, type TopUpAccount } from './account';
import { checkDocumentPaths } from './documents';
import { addNotes, checkNotesBody, notePaths } from './notes';
import { parseTransactionQuery } from './query';
import { addStatements, checkStatementsBody, statementPaths } from './statements';
import { addTransactions, checkTransactionsBody } from './transactions';
import { TopUpValidationError } from './validate';

/** Thrown inside a dry run's transaction to roll it back, carrying what it would have answered. */
class DryRunRollback<T> extends Error {
  constructor(readonly result: T) {
    super('dry run');
  }
}

/**
 * The platform's post-import top-ups of an imported account (docs/api.md, "The platform's other data-import operations"): transactions, notes,
 * historical statements. Each request is one PostgreSQL transaction with its outbox events, under
 * the account's row lock; each item answers its own status; a retry answers ALREADY_EXISTS.
 */
export function topUpsRouter(deps: RouteDeps & { db: Knex; config: Config; documentStore?: DocumentStore }): Router {
  const r = new Router({ prefix: '/v1/data-import' });
  r.use(deps.authenticate);
  // Every 400 in the platform's NonFieldErrors shape, the body's own too: mounted on each route (a
  // router's use() would also wrap the routes of the routers mounted after it on this prefix).
  const body = [errorShape(nonFieldErrorsBody), jsonBody(deps.config.http.bodyLimitBytes, { budget: deps.bodyBudget })];

  /** Body checks, supplier, then the account locked in a transaction that `work` runs in. */
  async function topUp<B extends { import_supplier: string; external_account_number: string }, T>(
    ctx: Context,
    check: (b: unknown) => B,
    paths: (b: B) => { attr: string; path: string }[],
    work: (trx: Knex, account: TopUpAccount, b: B) => Promise<T>,
    dryRun = (_b: B) => false,
  ): Promise<{ result: T; dryRun: boolean }> {
    assertObject(ctx.request.body);
    const b = check(ctx.request.body);
    ctx.state.logContext = { importSupplier: b.import_supplier, externalAccountNumber: b.external_account_number };
    const supplier = await topUpSupplier(deps.db, ctx, b.import_supplier);
    await checkDocumentPaths(supplier, deps.documentStore, paths(b));
    try {
      const result = await deps.db.transaction(async (trx) => {
        const account = await lockImportedAccount(trx, b.import_supplier, b.external_account_number);
        const out = await work(trx, account, b);
        if (dryRun(b)) throw new DryRunRollback(out);
        return out;
      });
      return { result, dryRun: false };
    } catch (err) {
      if (err instanceof DryRunRollback) return { result: err.result as T, dryRun: true };
      throw err;
    }
  }

  r.post('/transactions/create/', ...body, async (ctx) => {
    const query = parseTransactionQuery(ctx.query);
    if (!query.ok) throw new TopUpValidationError(query.errors);
    const { result, dryRun } = await topUp(
      ctx,
      checkTransactionsBody,
      () => [],
      (trx, account, b) => addTransactions(trx, account, b, { ...query, subjectPrefix: deps.config.nats.subjectPrefix, now: new Date() }),
      (b) => b.dry_run === true,
    );
    // A dry run writes nothing: 200 with what would have happened, never 201.
    ctx.status = dryRun ? 200 : 201;
    ctx.body = { results: result };
  });

  r.post('/notes/create/', ...body, async (ctx) => {
    const { result } = await topUp(ctx, checkNotesBody, notePaths, (trx, account, b) => addNotes(trx, account, b, new Date()));
    ctx.status = 201;
    ctx.body = result;
  });

  r.post('/historical-statements/create/', ...body, async (ctx) => {
    const { result } = await topUp(ctx, checkStatementsBody, statementPaths, addStatements);
    const b = ctx.request.body as { import_supplier: string; external_account_number: string };
    ctx.status = 201;
    ctx.body = { import_supplier: b.import_supplier, external_account_number: b.external_account_number, statements: result };
  });

  return r;
}
