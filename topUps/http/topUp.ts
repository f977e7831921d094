import type { Context } from 'koa';
import type { Knex } from 'knex';
import type { DocumentStore } from '../../account/documents';
import type { Config } from '../../lib/config';
import { assertObject } from '../../http/middleware/jsonBody';
import { common, json, ref, security } from '../../http/openapi';
import { lockImportedAccount, topUpSupplier, type TopUpAccount } from '../account';
import { checkDocumentPaths } from '../documents';

/**
 * What the platform's post-import top-ups of an imported account share (docs/api.md, "The
 * platform's other data-import operations": transactions, notes, historical statements): each
 * request is one PostgreSQL transaction with its outbox events, under the account's row lock;
 * each item answers its own status; a retry answers ALREADY_EXISTS. Every 400 is in the
 * platform's NonFieldErrors shape (http/middleware/errorShape.ts nonFieldErrorsBody).
 */
export interface TopUpDeps {
  db: Knex;
  config: Config;
  documentStore?: DocumentStore;
}

/** Thrown inside a dry run's transaction to roll it back, carrying what it would have answered. */
class DryRunRollback<T> extends Error {
  constructor(readonly result: T) {
    super('dry run');
  }
}

/** Body checks, supplier, then the account locked in a transaction that `work` runs in. */
export async function topUp<B extends { import_supplier: string; external_account_number: string }, T>(
  deps: TopUpDeps,
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

/** Plain JSON of a TypeBox schema (without its symbol keys). */

/**
 * A result item: the request item's schema with its status (and extra fields) added to it. Merged
 * rather than allOf, because the request item forbids additional properties and allOf would then
 * forbid the status too.
 */
export const withStatus = (item: Record<string, unknown>, statuses: string[], extra: Record<string, unknown> = {}) => ({
  ...item,
  required: [...((item.required as string[] | undefined) ?? []), 'status'],
  properties: { ...(item.properties as Record<string, unknown>), status: { type: 'string', enum: statuses }, ...extra },
});

/** A top-up's OpenAPI operation: its request and result schemas, and the answers every top-up gives. */
export const topUpOpenApi = (operationId: string, summary: string, request: string, result: string, extra: Record<string, unknown> = {}) => ({
  operationId,
  tags: ['platform'],
  summary,
  security,
  requestBody: { required: true, content: { 'application/json': { schema: ref(request) } } },
  ...extra,
  responses: {
    '201': json(ref(result), 'Done in one transaction; each item with its status (a retry answers ALREADY_EXISTS).'),
    '400': json(
      ref('NonFieldErrors'),
      "In the platform's NonFieldErrors shape: every issue of the body (`validation_error`, codes of docs/spec/RULES.md and the platform: missing_transaction_id, duplicate_transaction_ids, note_body_or_document_path_not_found, note_unpin_at_earlier_than_creation_date, invalid_document_path, path_does_not_exist_in_file_store, start_date_later_than_end_date, …), an unreadable body (`parse_error`), or a supplier that is Paused or Complete (`import_supplier_migration_not_ongoing`).",
    ),
    '404': json(ref('NotFound'), 'No imported account (unknown, only staged, or the supplier is outside your grant).'),
    ...common(true),
  },
});
