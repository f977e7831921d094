import { nonFieldErrorsBody } from '../../http/middleware/errorShape';
import { operation } from '../../http/operation';
import { HistoricalStatementsRequestSchema, TopUpStatementSchema } from '../schemas';
import { addStatements, checkStatementsBody, statementPaths } from '../statements';
import { plain } from '../../http/openapi';
import { topUp, type TopUpDeps, topUpOpenApi, withStatus } from './topUp';

/** `POST /v1/data-import/historical-statements/create/`: historical statements added to an imported account. */
export const statementsOperation = operation({
  method: 'post',
  path: '/v1/data-import/historical-statements/create/',
  errors: nonFieldErrorsBody,
  body: true,
  handler: (deps: TopUpDeps) => async (ctx) => {
    const { result } = await topUp(deps, ctx, checkStatementsBody, statementPaths, addStatements);
    const b = ctx.request.body as { import_supplier: string; external_account_number: string };
    ctx.status = 201;
    ctx.body = { import_supplier: b.import_supplier, external_account_number: b.external_account_number, statements: result };
  },
  schemas: {
    TopUpStatementsRequest: plain(HistoricalStatementsRequestSchema),
    TopUpStatementsResult: {
      type: 'object',
      required: ['import_supplier', 'external_account_number', 'statements'],
      properties: {
        import_supplier: { type: 'string' },
        external_account_number: { type: 'string' },
        statements: {
          type: 'array',
          items: withStatus(plain(TopUpStatementSchema), ['STATEMENT_CREATION_SUCCESS', 'STATEMENT_ALREADY_EXISTS', 'STATEMENT_IMPORT_ERROR'], {
            error_code: { type: 'string', enum: ['historical_statement_already_exists'] },
            error_detail: { type: 'string' },
          }),
        },
      },
    },
  },
  openapi: topUpOpenApi('createHistoricalStatements', 'Add historical statements to an imported account.', 'TopUpStatementsRequest', 'TopUpStatementsResult'),
});
