import { Type, type Static } from '@sinclair/typebox';
import type { Knex } from 'knex';
import { supplierTotals } from '../../db/stores/supplierTotals';
import { v2ErrorBody } from '../../http/middleware/errorShape';
import { assertObject } from '../../http/middleware/jsonBody';
import { common, json, ref, security } from '../../http/openapi';
import { operation } from '../../http/operation';
import { canAccessSupplier } from '../../http/principal';
import { bodyChecker } from '../../http/validation';
import { isStorableText } from '../../account/storableText';

/** Body of `POST /v2/data-import/accounts/totals/`; placed in the OpenAPI document as it is. */
const TotalsRequestSchema = Type.Object({ import_supplier: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false });
const checkTotalsBody = bodyChecker<Static<typeof TotalsRequestSchema>>(TotalsRequestSchema);

const NO_TOTALS = { accounts: 0, customers: 0, meter_points: 0, meters: 0, registers: 0, ledger_balances: '0', debts: '0' };

/**
 * `POST /v2/data-import/accounts/totals/`: the totals of every account imported for the supplier,
 * in one statement: what the reconciliation compares a whole book with, and how it knows the
 * supplier's accounts outside a tranche without asking about them one by one. Outside the grant:
 * a supplier with none.
 */
export const totalsOperation = operation({
  method: 'post',
  path: '/v2/data-import/accounts/totals/',
  errors: v2ErrorBody,
  body: true,
  handler: (deps: { db: Knex }) => async (ctx) => {
    assertObject(ctx.request.body);
    const b = checkTotalsBody(ctx.request.body);
    ctx.state.logContext = { importSupplier: b.import_supplier };
    const granted = canAccessSupplier(ctx, b.import_supplier) && isStorableText(b.import_supplier);
    ctx.body = { import_supplier: b.import_supplier, ...(granted ? await supplierTotals(deps.db, b.import_supplier) : NO_TOTALS) };
  },
  schemas: {
    SupplierTotalsRequest: JSON.parse(JSON.stringify(TotalsRequestSchema)) as unknown,
    SupplierTotals: {
      type: 'object',
      required: ['import_supplier', 'accounts', 'customers', 'meter_points', 'meters', 'registers', 'ledger_balances', 'debts'],
      additionalProperties: false,
      properties: {
        import_supplier: { type: 'string', maxLength: 64 },
        accounts: { type: 'integer', minimum: 0, description: 'Accounts imported for the supplier (an account whose import is PROCESSED).' },
        customers: { type: 'integer', minimum: 0, description: 'Their customers.' },
        meter_points: { type: 'integer', minimum: 0, description: 'Their meter points (of every supply address).' },
        meters: { type: 'integer', minimum: 0 },
        registers: { type: 'integer', minimum: 0 },
        ledger_balances: { type: 'string', pattern: '^-?\\d+(\\.\\d+)?$', description: 'The sum of `ledgers[].ledger_balance`, exact, as a decimal string.' },
        debts: { type: 'string', pattern: '^-?\\d+(\\.\\d+)?$', description: 'The sum of `debts[].aged_debt[].debt_amount`, exact, as a decimal string.' },
      },
    },
  },
  openapi: {
    operationId: 'getSupplierTotals',
    tags: ['accounts'],
    summary: 'The totals of every account imported for one supplier: accounts, customers, meter points, meters, registers, ledger balances and debts summed.',
    description:
      'Counted by the database in one request, over every account whose import is PROCESSED: `data-import reconcile` compares them with the totals of a whole book, and knows from them what the supplier holds outside a tranche without asking about each account (docs/bulk-migration.md, "Tranches"). Sums are exact decimal strings. A supplier outside your grant answers as one with no accounts: every total 0.',
    security,
    requestBody: { required: true, content: { 'application/json': { schema: ref('SupplierTotalsRequest') } } },
    responses: {
      '200': json(ref('SupplierTotals'), 'The totals of the supplier\'s imported accounts.'),
      '400': json({ oneOf: [ref('QueryValidationFailed'), ref('V2ParseError')] }, 'A body of the wrong shape (`validation_error` with every issue: `unknown_field`, `required`, `invalid` for a wrong type, `blank`, `max_length` for a supplier code too long), or an unreadable body (`parse_error`).'),
      ...common(true),
    },
  },
});
