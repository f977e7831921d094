import { checkLedgers } from '../../../account/rules/ledgers';
import type { Mutate } from './mutate';
import { ruleErrorsAfter } from './ruleContext';

const errorsAfter = (mutate: Mutate, shapeErrors: string[] = []) => ruleErrorsAfter(checkLedgers, mutate, shapeErrors);

/** The example's one ledger moved to the top of the Account, the platform's form. */
const toTopLevel: Mutate = (a) => {
  const { ledger_balance: _balance, ...statement } = a.ledgers[0];
  delete a.ledgers;
  Object.assign(a, statement);
};
const then = (...steps: Mutate[]): Mutate => (a) => steps.forEach((step) => step(a));
const lineItem = (start: string, end: string) => ({ start_date: start, end_date: end, net_amount: '10.00', number_of_units: '31' });

describe('the ledger rules on the platform\'s top-level form', () => {
  it.each<[string, Mutate, string[]]>([
    ['the example\'s ledger at the top of the Account validates', toTopLevel, []],
    ['an empty ledgers[] beside the top-level form validates', then(toTopLevel, (a) => (a.ledgers = [])), []],
    [
      'the top-level form beside ledgers[] is ledger_forms_mixed, at the first top-level field',
      (a) => (a.last_statement_closing_date = '2026-10-31'),
      ['ledger_forms_mixed@last_statement_closing_date'],
    ],
    [
      'transaction ids are unique across both forms',
      (a) => (a.current_statement_transactions = [{ ...a.ledgers[0].current_statement_transactions[0] }]),
      ['ledger_forms_mixed@current_statement_transactions', 'duplicate_transaction_ids@current_statement_transactions.0.transaction_id'],
    ],
    [
      'a repeated transaction id at the top is duplicate_transaction_ids',
      then(toTopLevel, (a) => (a.historical_statement_transactions[1].transaction_id = 'TX-100045-0301')),
      ['duplicate_transaction_ids@historical_statement_transactions.1.transaction_id'],
    ],
    [
      'a top-level transaction without an id is missing_transaction_id',
      then(toTopLevel, (a) => delete a.current_statement_transactions[0].transaction_id),
      ['missing_transaction_id@current_statement_transactions.0.transaction_id'],
    ],
    [
      'a top-level statement issued before it closes is last_statement_issued_before_closing_date',
      then(toTopLevel, (a) => (a.last_statement_issue_date = '2026-10-30')),
      ['last_statement_issued_before_closing_date@last_statement_issue_date'],
    ],
    [
      'a top-level historical transaction after the closing date is historical_statement_transaction_after_last_statement_closing_date',
      then(toTopLevel, (a) => (a.historical_statement_transactions[1].transaction_date = '2026-11-01')),
      ['historical_statement_transaction_after_last_statement_closing_date@historical_statement_transactions.1.transaction_date'],
    ],
    [
      'a top-level line item ending before it starts is start_date_later_than_end_date',
      then(toTopLevel, (a) => (a.historical_statement_transactions[0].line_items = [lineItem('2026-09-01', '2026-09-30'), lineItem('2026-10-01', '2026-09-30')])),
      ['start_date_later_than_end_date@historical_statement_transactions.0.line_items.1.end_date'],
    ],
    [
      'a line item in ledgers[] is held to the same rule',
      (a) => (a.ledgers[0].current_statement_transactions[0].line_items = [lineItem('2026-11-02', '2026-11-01')]),
      ['start_date_later_than_end_date@ledgers.0.current_statement_transactions.0.line_items.0.end_date'],
    ],
  ])('%s', (_name, mutate, expected) => {
    expect(errorsAfter(mutate)).toEqual(expected);
  });

  it('reads no top-level field with a shape error in it', () => {
    const mutate = then(toTopLevel, (a) => {
      a.historical_statement_transactions[1].transaction_id = 'TX-100045-0301';
      a.historical_statement_transactions[0].amount = '1e3';
    });
    expect(errorsAfter(mutate, ['historical_statement_transactions.0.amount'])).toEqual([]);
  });
});
