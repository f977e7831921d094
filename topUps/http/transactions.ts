import { nonFieldErrorsBody } from '../../http/middleware/errorShape';
import { operation } from '../../http/operation';
import { ValidationError } from '../../http/validation';
import { parseTransactionQuery } from '../query';
import { TopUpTransactionSchema, TransactionsRequestSchema } from '../schemas';
import { addTransactions, checkTransactionsBody } from '../transactions';
import { plain } from '../../http/openapi';
import { topUp, type TopUpDeps, topUpOpenApi } from './topUp';

/** `POST /v1/data-import/transactions/create/`: ledger transactions added to an imported account (a dry run writes nothing). */
export const transactionsOperation = operation({
  method: 'post',
  path: '/v1/data-import/transactions/create/',
  errors: nonFieldErrorsBody,
  body: true,
  handler: (deps: TopUpDeps) => async (ctx) => {
    const query = parseTransactionQuery(ctx.query);
    if (!query.ok) throw new ValidationError(query.errors);
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
    parameters: [
      { name: 'check_previously_added', in: 'query', required: false, description: 'Default true: a transaction_id already on the account answers TRANSACTION_ALREADY_EXISTS; false: TRANSACTION_IMPORT_ERROR (ids stay unique).', schema: { type: 'boolean', default: true } },
      { name: 'force_add_to_current_statement', in: 'query', required: false, description: 'Default true: a date inside a closed statement period is moved to the day after the last statement closing date, with a pinned note; false: TRANSACTION_IMPORT_ERROR.', schema: { type: 'boolean', default: true } },
    ],
  }),
});
