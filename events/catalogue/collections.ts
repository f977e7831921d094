import { section } from './entry';
import { arr, bool, int, opt, str } from './fields';

const entry = section('Collections, debt and dunning events');

const pausedWithSource = { number: str(), account_number: str(), source: str() };
const delinquentV1 = { ledger_number: str(), changed_on: str(), previous_value: int(), new_value: int() };
const depositAccepted = {
  deposit_key: str(),
  reason: str(),
  amount: int(),
  account_number: str(),
  ledger_identifier: str(),
  accepted_at: str(),
};
const { accepted_at: _acceptedAt, ...depositWithoutAcceptedAt } = depositAccepted;

export const COLLECTION_EVENTS = [
  entry('collection_proceeding.created', 'v1', {
    id: int(),
    account_number: str(),
    amount: opt(int()),
    campaign: opt(str()),
    is_white_label: bool(),
    agency_code: str(),
  }),
  entry('collection_process.raised', 'v1', {
    number: str(),
    account_number: str(),
    ledger: opt(str()),
    billing_document: opt(str()),
    config_code: str(),
  }),
  entry('collection_process.paused', 'v1', { ...pausedWithSource, active_pause_reasons: arr(str()) }),
  entry('collection_process.unpaused', 'v1', pausedWithSource),
  entry('collection_process.reactivated', 'v1', { number: str() }),
  entry('collection_process.run_termination_requested', 'v1', { number: str() }),
  entry('collection_process.leave_supplier_instigated', 'v1', {
    number: str(),
    account_number: str(),
    leave_supplier_process_number: str(),
  }),
  entry('collection_process.withdrawn', 'v1', { number: str(), account_number: str(), external_reference: str() }),
  entry('collection_process.withdrawn', 'v2', { number: str(), account_number: str() }),
  entry('debt.actioning.automated_debt_write_back.completed', 'v1', {
    ledger_number: str(),
    account_number: str(),
    amount: int(),
  }),
  entry('debt.actioning.automated_debt_write_back.failed', 'v1', {
    ledger_number: str(),
    account_number: str(),
    reason: str(),
    exception: str(),
  }),
  entry('debt.actioning.automated_debt_write_back.skipped', 'v1', {
    ledger_number: str(),
    account_number: str(),
    reason: str(),
  }),
  entry('delinquent_debt.position_changed', 'v1', delinquentV1),
  entry('delinquent_debt.position_changed', 'v2', { ...delinquentV1, account_number: str() }),
  entry('deposit_agreement.accepted', 'v1', depositAccepted, {
    description: 'A customer accepted to pay a deposit; this service emits one per imported deposit agreement with accepted_at.',
  }),
  // "the same fields with fulfilled_at, returned_at, withdrawn_at (str) in place of accepted_at"
  entry('deposit_agreement.fulfilled', 'v1', { ...depositWithoutAcceptedAt, fulfilled_at: str() }, {
    description: 'A customer paid a deposit; this service emits one per imported deposit agreement with fulfilled_at.',
  }),
  entry('deposit_agreement.returned', 'v1', { ...depositWithoutAcceptedAt, returned_at: str() }),
  entry('deposit_agreement.withdrawn', 'v1', { ...depositWithoutAcceptedAt, withdrawn_at: str() }),
  entry('deposit_agreement.instalment_returned', 'v1', {
    ...depositWithoutAcceptedAt,
    returned_amount: int(),
    returned_at: str(),
  }),
  entry(
    'dunning_path_started',
    'v1',
    {
      dunning_path_name: str(),
      dunning_process_id: str(),
      account_number: str(),
      created_note: str(),
      start_date: str(),
    },
    { description: 'An account entered a dunning path; this service emits it for an imported dunning path.' },
  ),
  entry('dunning_path_paused', 'v1', {
    account_number: str(),
    dunning_path_name: str(),
    dunning_process_id: str(),
    pause_start_date: str(),
    pause_end_date: str(),
    created_note: str(),
  }),
  entry('dunning_path_unpaused', 'v1', {
    account_number: str(),
    dunning_path_name: str(),
    dunning_process_id: str(),
  }),
  entry('dunning_path_withdrawn', 'v1', {
    account_number: str(),
    dunning_path_name: str(),
    dunning_process_id: str(),
    withdrawn_date: str(),
    withdrawn_note: str(),
  }),
] as const;
