import { Type, type Static } from '@sinclair/typebox';
import { nonFieldErrorsBody } from '../../http/middleware/errorShape';
import { operation } from '../../http/operation';
import { TopUpTransactionSchema, TransactionsRequestSchema } from '../schemas';
import { addTransactions, checkTransactionsBody } from '../transactions';
import { plain } from '../../http/openapi';
import { topUp, type TopUpDeps, topUpOpenApi } from './topUp';

/** The query flags of transactions/create, both default true as the platform documents them: `true`/`false`/`1`/`0` in any case. */
const TransactionsQuery = Type.Object(
  {
    check_previously_added: Type.Optional(
      Type.Boolean({ default: true, description: 'Default true: a transaction_id already on the account answers TRANSACTION_ALREADY_EXISTS; false: TRANSACTION_IMPORT_ERROR (ids stay unique).' }),
    ),
    force_add_to_current_statement: Type.Optional(
      Type.Boolean({
        default: true,
        description: 'Default true: a date inside a closed statement period is moved to the day after the last statement closing date, with a pinned note; false: TRANSACTION_IMPORT_ERROR.',
      }),
    ),
  },
  { additionalProperties: false },
);

/** `POST /v1/data-import/transactions/create/`: ledger transactions added to an imported account (a dry run writes nothing). */
export const transactionsOperation = operation({
  method: 'post',
  path: '/v1/data-import/transactions/create/',
  errors: nonFieldErrorsBody,
  query: TransactionsQuery,
  body: true,
  handler: (deps: TopUpDeps) => async (ctx) => {
    const flags = ctx.state.query as Static<typeof TransactionsQuery>;
    const query = { checkPreviouslyAdded: flags.check_previously_added ?? true, forceAddToCurrentStatement: flags.force_add_to_current_statement ?? true };
    const { result, dryRun } = await topUp(
      deps,
      ctx,
      checkTransactionsBody,
      () => [],
      (trx, account, b) => addTransactions(trx, account, b, { ...query, subjectPrefix: deps.config.nats.subjectPrefix, now: new Date() }),
      (b) => b.dry_run === true,
    );
    // A dry run writes nothing: 200 with what would have happened, never 201.
    ctx.status = dryRun ? 200 : 201;
    ctx.body = { results: result };
  },
  schemas: {
    TopUpTransactionsRequest: plain(TransactionsRequestSchema),
    TopUpTransactionsResult: {
      type: 'object',
      required: ['results'],
      properties: {
        results: {
          type: 'array',
          items: {
            type: 'object',
            required: ['status', 'transaction_data'],
            properties: {
              status: { type: 'string', enum: ['TRANSACTION_ADDED_TO_ACCOUNT', 'TRANSACTION_ALREADY_EXISTS', 'TRANSACTION_IMPORT_ERROR'] },
              transaction_data: plain(TopUpTransactionSchema),
              added_transaction_id: { type: 'integer', description: 'With TRANSACTION_ADDED_TO_ACCOUNT: the ledger entry id (as in billing.ledger.entry_posted).' },
              error_detail: { type: 'string', description: 'With TRANSACTION_IMPORT_ERROR.' },
            },
          },
        },
      },
    },
  },
  openapi: topUpOpenApi('createTransactions', 'Add ledger transactions to an imported account.', 'TopUpTransactionsRequest', 'TopUpTransactionsResult', {
    description:
      'Adds to the account\'s first ledger, moves its balance (credit-positive) and publishes billing.ledger.entry_posted v2 per added transaction, all in one transaction. `dry_run: true` answers 200 with the statuses and writes nothing.',
  }),
});
