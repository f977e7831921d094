import { errorsAfter, type Mutate } from './mutate';

const LEDGER = 'ledgers.0';

describe('ledger, payment schedule and other account-level rules', () => {
  it.each<[string, Mutate, string[]]>([
    ['a transaction without an id is missing_transaction_id', (a) => delete a.ledgers[0].current_statement_transactions[0].transaction_id, [`missing_transaction_id@${LEDGER}.current_statement_transactions.0.transaction_id`]],
    ['a transaction id used twice is duplicate_transaction_ids', (a) => (a.ledgers[0].historical_statement_transactions[1].transaction_id = 'TX-100045-0301'), [`duplicate_transaction_ids@${LEDGER}.historical_statement_transactions.1.transaction_id`]],
    [
      'a transaction id reused in another ledger is duplicate_transaction_ids',
      (a) => {
        a.ledgers[0].ledger_balance = '-50.20';
        a.ledgers.push({ ledger_balance: '5.00', current_statement_transactions: [{ ...a.ledgers[0].current_statement_transactions[0] }] });
      },
      ['duplicate_transaction_ids@ledgers.1.current_statement_transactions.0.transaction_id'],
    ],
    ['ledger balances not adding up is ledger_balances_not_equal_to_transfer_balance', (a) => (a.transfer_balance = '-45.21'), ['ledger_balances_not_equal_to_transfer_balance@transfer_balance']],
    [
      'ledger balances adding up exactly across scales are accepted',
      (a) => {
        a.ledgers[0].ledger_balance = '-55.2';
        a.ledgers.push({ ledger_balance: '10' });
      },
      [],
    ],
    ['a statement issued before closing is last_statement_issued_before_closing_date', (a) => (a.ledgers[0].last_statement_issue_date = '2026-10-30'), [`last_statement_issued_before_closing_date@${LEDGER}.last_statement_issue_date`]],
    [
      'a historical transaction after closing is historical_statement_transaction_after_last_statement_closing_date',
      (a) => (a.ledgers[0].historical_statement_transactions[0].transaction_date = '2026-11-01'),
      [`historical_statement_transaction_after_last_statement_closing_date@${LEDGER}.historical_statement_transactions.0.transaction_date`],
    ],
    ['a payment review tomorrow is last_payment_review_date_is_future_dated', (a) => (a.last_payment_review_date = '2026-11-22'), ['last_payment_review_date_is_future_dated@last_payment_review_date']],
    ['a payment review today is accepted', (a) => (a.last_payment_review_date = '2026-11-21'), []],
    [
      'two open-ended payment schedules is multiple_open_ended_payment_schedules',
      (a) => a.payment_schedules.push({ ...a.payment_schedules[0], start_date: '2025-01-03' }),
      ['multiple_open_ended_payment_schedules@payment_schedules.1'],
    ],
    [
      'a schedule inside another one is payment_schedule_date_overlaps',
      (a) => a.payment_schedules.push({ ...a.payment_schedules[0], start_date: '2025-01-03', is_debt_repayment_plan: true, debt_repayment_end_date: '2025-06-30' }),
      ['payment_schedule_date_overlaps@payment_schedules.1.start_date'],
    ],
    [
      'a debt plan that ends before the next schedule starts is accepted',
      (a) => a.payment_schedules.unshift({ ...a.payment_schedules[0], start_date: '2023-01-03', is_debt_repayment_plan: true, debt_repayment_end_date: '2023-12-31' }),
      [],
    ],
    ['a debt repayment plan without an end date is debt_repayment_missing_end_date', (a) => (a.payment_schedules[0].is_debt_repayment_plan = true), ['debt_repayment_missing_end_date@payment_schedules.0.debt_repayment_end_date']],
    [
      'a debt plan ending before it starts is start_date_later_than_end_date',
      (a) => Object.assign(a.payment_schedules[0], { is_debt_repayment_plan: true, debt_repayment_end_date: '2023-12-31' }),
      ['start_date_later_than_end_date@payment_schedules.0.debt_repayment_end_date'],
    ],
    // Area 3 of issue 35: the platform's schedule detail.
    [
      'a Fuel Direct schedule with the platform\'s detail validates',
      (a) => Object.assign(a.payment_schedules[0], { paid_by: 'FUEL_DIRECT', end_date: '2026-12-31', trigger: 'BILL', ledger_code: 'MAIN', balance_threshold: '-50.00', delay_days: 2, delay_strategy: 'FIXED', exempt_from_payment_adequacy: true }),
      [],
    ],
    ['a schedule whose end_date is before its start is start_date_later_than_end_date', (a) => (a.payment_schedules[0].end_date = '2024-01-02'), ['start_date_later_than_end_date@payment_schedules.0.end_date']],
    [
      'end_date ends a schedule: a second one starting after it does not overlap',
      (a) => ((a.payment_schedules[0].end_date = '2024-12-31'), a.payment_schedules.push({ ...a.payment_schedules[0], end_date: undefined, start_date: '2025-01-03' })),
      [],
    ],
    [
      'a schedule starting before another\'s end_date overlaps it',
      (a) => ((a.payment_schedules[0].end_date = '2024-12-31'), a.payment_schedules.push({ amount: '10.00', frequency: 'MONTHLY', means: 'DD', start_date: '2024-06-01' })),
      ['payment_schedule_date_overlaps@payment_schedules.1.start_date'],
    ],
    ['paid_by takes the platform\'s values only', (a) => (a.payment_schedules[0].paid_by = 'DWP'), ['invalid_choice@payment_schedules.0.paid_by']],
    ['a negative delay_days is min_value', (a) => (a.payment_schedules[0].delay_days = -1), ['min_value@payment_schedules.0.delay_days']],
    ['a statement period ending before it starts is start_date_later_than_end_date', (a) => (a.statements[0].bill_period_to_date = '2026-09-30'), ['start_date_later_than_end_date@statements.0.bill_period_to_date']],
    ['a tax year of non-consecutive years is incorrect_format_for_tax_year', (a) => (a.warm_home_discount[0].tax_year = '2025/27'), ['incorrect_format_for_tax_year@warm_home_discount.0.tax_year']],
    ['a tax year in another form is incorrect_format_for_tax_year', (a) => (a.warm_home_discount[0].tax_year = '2025-26'), ['incorrect_format_for_tax_year@warm_home_discount.0.tax_year']],
    ['a tax year across the century is accepted', (a) => (a.warm_home_discount[0].tax_year = '1999/00'), []],
    ['a metadata key given twice is metadata_has_duplicate_keys', (a) => a.metadata.push({ key: 'legacy_tariff_family', value: {} }), ['metadata_has_duplicate_keys@metadata.1.key']],
    ['a campaign given twice is duplicate_account_campaigns', (a) => a.account_campaigns.push({ slug: 'winter-support-2026' }), ['duplicate_account_campaigns@account_campaigns.1.slug']],
    [
      'a note with neither body nor documents is note_body_or_document_path_not_found',
      (a) => {
        a.notes[0].body = '';
        delete a.notes[0].document_paths;
      },
      ['note_body_or_document_path_not_found@notes.0.body'],
    ],
    ['a note with only documents is accepted', (a) => delete a.notes[0].body, []],
    ['a debt with a start date and no agency is debt_collection_agency_name_required', (a) => (a.debts = [{ start_date: '2026-01-01', is_insolvent: false }]), ['debt_collection_agency_name_required@debts.0.agency_name']],
    ['a statement path climbing out of the root is invalid_document_path', (a) => (a.statements[0].statement_path = '/statements/../../etc/passwd'), ['invalid_document_path@statements.0.statement_path']],
    ['an encoded traversal in a note document is invalid_document_path', (a) => (a.notes[0].document_paths[0].document_path = '/notes/%2e%2e/%2e%2e/secret.pdf'), ['invalid_document_path@notes.0.document_paths.0.document_path']],
  ])('%s', async (_name, mutate, expected) => {
    expect(await errorsAfter(mutate)).toEqual(expected);
  });
});
