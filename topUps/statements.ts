import type { Knex } from 'knex';
import type { IssueList } from '../account/issues';
import type { TopUpAccount } from './account';
import { HistoricalStatementsRequestSchema, type HistoricalStatementsRequest, type TopUpStatement } from './schemas';
import { bodyChecker } from '../http/validation';
import { checkIds } from './validate';
import { importedStatementIds } from '../db/stores/accountTopUps';
import { addedStatements, insertStatement } from './store';

export type StatementStatus = 'STATEMENT_CREATION_SUCCESS' | 'STATEMENT_ALREADY_EXISTS' | 'STATEMENT_IMPORT_ERROR';
export type StatementResult = TopUpStatement & { status: StatementStatus; error_code?: string; error_detail?: string };

export const checkStatementsBody = bodyChecker<HistoricalStatementsRequest>(HistoricalStatementsRequestSchema, (body, issues: IssueList) => {
  checkIds(body.statements, 'statements', 'statement_id', issues, { duplicate: 'duplicate_statement_ids' });
  body.statements.forEach((s, i) => {
    if (s.bill_period_to_date < s.bill_period_from_date) {
      issues.add('start_date_later_than_end_date', `statements.${i}.bill_period_to_date`, 'The end date is before the start date.');
    }
  });
});

export const statementPaths = (req: HistoricalStatementsRequest) =>
  req.statements.flatMap((s, i) => (s.statement_path === undefined ? [] : [{ attr: `statements.${i}.statement_path`, path: s.statement_path }]));

const COLUMNS = ['bill_period_from_date', 'bill_period_to_date', 'issued_date', 'number', 'gross_amount', 'statement_path'] as const;
const rowOf = (s: TopUpStatement) => ({
  bill_period_from_date: s.bill_period_from_date,
  bill_period_to_date: s.bill_period_to_date,
  issued_date: s.issued_date ?? null,
  number: s.number ?? null,
  gross_amount: s.gross_amount ?? null,
  statement_path: s.statement_path ?? null,
});

/**
 * Adds historical statements by `statement_id`, the platform's identifier. The same id with the
 * same content is STATEMENT_ALREADY_EXISTS (a retry); with other content, or an id the import
 * already brought, it is STATEMENT_IMPORT_ERROR with the platform's code
 * historical_statement_already_exists. No catalogue event reports an imported historical
 * statement (billing.issued_bill is for bills the platform issues), so none is published.
 */
export async function addStatements(trx: Knex, account: TopUpAccount, req: HistoricalStatementsRequest): Promise<StatementResult[]> {
  const ids = req.statements.map((s) => s.statement_id);
  const imported = new Set<string>(await importedStatementIds(trx, account.id, ids));
  const added = new Map<string, Record<string, unknown>>();
  for (const r of await addedStatements(trx, account.id, ids, COLUMNS)) added.set(r.statement_id as string, { ...r, gross_amount: r.gross_amount === null ? null : Number(r.gross_amount) });

  const results: StatementResult[] = [];
  for (const s of req.statements) {
    const row = rowOf(s);
    const before = added.get(s.statement_id);
    if (imported.has(s.statement_id) || (before && COLUMNS.some((c) => before[c] !== row[c]))) {
      results.push({ ...s, status: 'STATEMENT_IMPORT_ERROR', error_code: 'historical_statement_already_exists', error_detail: `Statement ${s.statement_id} is already on the account.` });
    } else if (before) {
      results.push({ ...s, status: 'STATEMENT_ALREADY_EXISTS' });
    } else {
      await insertStatement(trx, { account_id: account.id, statement_id: s.statement_id, ...row });
      results.push({ ...s, status: 'STATEMENT_CREATION_SUCCESS' });
    }
  }
  return results;
}
