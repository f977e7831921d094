import Router from '@koa/router';
import { Type, type Static } from '@sinclair/typebox';
import type { RouterDeps } from '../deps';
import { assertObject, jsonBody } from '../../http/middleware/jsonBody';
import { canAccessSupplier } from '../../http/principal';
import { findProcesses, toApiRecord } from '../../imports/store';
import { loadAccountsByExternal } from '../../db/stores/accountStore';
import { accountDigests } from '../../db/stores/accountDigests';
import { supplierTotals } from '../../db/stores/supplierTotals';
import { bodyChecker } from '../../platform/topUps/validate';
import { notFound } from '../../http/errors';
import { errorShape, v2ErrorBody } from '../../http/middleware/errorShape';
import { MAX_STATUS_NUMBERS, StatusesRequestSchema } from './imports';

/** At most this many account numbers per bulk digest request: as the bulk status operation. */
export const MAX_DIGEST_NUMBERS = MAX_STATUS_NUMBERS;

/** Body of `POST /v2/data-import/accounts/digests/`: the bulk status operation's. */
export const DigestsRequestSchema = StatusesRequestSchema;
type DigestsRequest = Static<typeof DigestsRequestSchema>;

const checkDigestsBody = bodyChecker<DigestsRequest>(DigestsRequestSchema, () => undefined);

/** Body of `POST /v2/data-import/accounts/totals/`; placed in the OpenAPI document as it is. */
export const TotalsRequestSchema = Type.Object({ import_supplier: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false });
type TotalsRequest = Static<typeof TotalsRequestSchema>;
const checkTotalsBody = bodyChecker<TotalsRequest>(TotalsRequestSchema, () => undefined);

const NO_TOTALS = { accounts: 0, customers: 0, meter_points: 0, meters: 0, registers: 0, ledger_balances: '0', debts: '0' };

/** PostgreSQL text cannot hold U+0000: no account can have such a key (answered as not found). */
const storable = (s: string) => !s.includes('\u0000');

/**
 * The reconciliation's two operations (docs/bulk-migration.md, "Sign-off"): the account as stored,
 * read back from the account tables (not the stored payload, which retention drops) in the create
 * body's shape, and, for up to 500 accounts of one supplier, each one's import status and the
 * digest of its canonical form (account/canonical.ts). Grants as the status operation: a supplier
 * outside the caller's grant is one with no import processes and no accounts. And the totals of
 * all the accounts imported for a supplier (counts and sums), in one request.
 */
export function reconcileRouter(deps: RouterDeps): Router {
  const r = new Router({ prefix: '/v2/data-import/accounts' });
  r.use(deps.authenticate);
  const body = [errorShape(v2ErrorBody), jsonBody(deps.config.http.bodyLimitBytes, { budget: deps.bodyBudget })];

  r.get('/:supplier/:external/account/', async (ctx) => {
    const { supplier, external } = ctx.params as { supplier: string; external: string };
    ctx.state.logContext = { importSupplier: supplier, externalAccountNumber: external };
    const visible = canAccessSupplier(ctx, supplier) && storable(supplier) && storable(external);
    const account = visible ? (await loadAccountsByExternal(deps.db, supplier, [external])).get(external) : undefined;
    if (!account) throw notFound('No imported account for this import supplier and external account number.');
    ctx.body = account;
  });

  // Each requested number with an import process answers its status record plus the digest of the
  // account as stored (null when no account exists: not PROCESSED); the others are in not_found,
  // each number once, in the order of the request. One query for the processes, one for the stored
  // digests; an account without one of this build's form is read back and hashed, and its digest
  // stored (db/stores/accountDigests.ts), in one transaction.
  r.post('/digests/', ...body, async (ctx) => {
    assertObject(ctx.request.body);
    const b = checkDigestsBody(ctx.request.body);
    ctx.state.logContext = { importSupplier: b.import_supplier };
    const numbers = [...new Set(b.external_account_numbers)];
    const keys = numbers.filter(storable);
    const granted = canAccessSupplier(ctx, b.import_supplier) && storable(b.import_supplier);
    const found = granted ? await findProcesses(deps.db, b.import_supplier, keys) : [];
    const withAccount = found.filter((p) => p.status === 'PROCESSED').map((p) => p.externalAccountNumber);
    const digests = granted && withAccount.length > 0 ? await deps.db.transaction((trx) => accountDigests(trx, b.import_supplier, withAccount)) : new Map<string, string>();
    const byNumber = new Map(found.map((p) => [p.externalAccountNumber, p]));
    const results = [];
    const notFoundNumbers: string[] = [];
    for (const n of numbers) {
      const p = byNumber.get(n);
      if (!p) {
        notFoundNumbers.push(n);
        continue;
      }
      results.push({ external_account_number: n, ...toApiRecord(p), digest: digests.get(n) ?? null });
    }
    ctx.body = { results, not_found: notFoundNumbers };
  });

  // The totals of every account imported for the supplier, in one statement: what the
  // reconciliation compares a whole book with, and how it knows the supplier's accounts outside a
  // tranche without asking about them one by one. Outside the grant: a supplier with none.
  r.post('/totals/', ...body, async (ctx) => {
    assertObject(ctx.request.body);
    const b = checkTotalsBody(ctx.request.body);
    ctx.state.logContext = { importSupplier: b.import_supplier };
    const granted = canAccessSupplier(ctx, b.import_supplier) && storable(b.import_supplier);
    ctx.body = { import_supplier: b.import_supplier, ...(granted ? await supplierTotals(deps.db, b.import_supplier) : NO_TOTALS) };
  });

  return r;
}
