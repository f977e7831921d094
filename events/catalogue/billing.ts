import { section } from './entry';
import { arr, bool, int, obj, opt, str } from './fields';
import { ChargePeriod, Ledger, LedgerEntry, LedgerEntryRemoval } from './shared';

const entry = section('Billing events');

// Later versions that "add" fields are whole payloads: each spreads the version before it, so v3
// carries the v2 additions too.
const documentIssuedV1 = { account_number: str(), billing_document_id: int(), billing_document_identifier: str() };
const dispatchedV1 = { account_number: str(), billing_document_id: int(), billing_document_identifier: str() };
const dispatchedV2 = {
  ...dispatchedV1,
  billing_document_representation_dispatch_id: int(),
  billing_document_representations_id: arr(int()),
};
const rebateAccepted = {
  account_number: str(),
  rebate_period_id: int(),
  rebate_type: str(),
  effective_from: str(),
  effective_to: str(),
};
const rebateWithApplication = { ...rebateAccepted, is_application_accepted: bool() };
const duosInvoice = { invoice_event_id: int() };
const runStarted = { run_id: str(), account_number: str() };
const feesCounted = { ...runStarted, fees_applied_count: int(), fees_unapplied_count: int() };

export const BILLING_EVENTS = [
  entry('billing.billing_document.held', 'v1', {
    account_number: str(),
    document_type: str(),
    document_id: int(),
    document_identifier: str(),
    document_uuid: str(),
    hold_code: str(),
    is_strict: bool(),
    held_at: str(),
    held_by_id: int(),
  }),
  entry('billing.billing_document.issued', 'v1', documentIssuedV1),
  entry('billing.billing_document.issued', 'v2', { ...documentIssuedV1, billing_document_uuid: str() }),
  entry('billing.billing_document_representation.dispatched', 'v1', dispatchedV1),
  entry('billing.billing_document_representation.dispatched', 'v2', dispatchedV2),
  entry('billing.billing_document_representation.dispatched', 'v3', { ...dispatchedV2, support_user_id: int() }),
  entry('billing.billing_options.updated', 'v1', {
    account_number: str(),
    previous_billing_options_id: int(),
    new_billing_options_id: int(),
    support_user_id: int(),
  }),
  entry('billing.charging-ledger.assigned-to-agreement', 'v1', {
    ledger_number: str(),
    agreement_id: int(),
    assigned_at: str(),
  }),
  entry('billing.charging.supply-point.triggered', 'v1', { supply_point_id: int(), charge_period: ChargePeriod }),
  entry('billing.duos_invoice.cancel', 'v1', duosInvoice),
  entry('billing.duos_invoice.new', 'v1', duosInvoice),
  entry('billing.duos_invoice.replace', 'v1', duosInvoice),
  entry('billing.final_bill', 'v1', { account_number: str(), account_user_emails: arr(str()), statement_id: int() }),
  entry('billing.issuance.external_status.created', 'v1', {
    billing_document_identifier: str(),
    status: str(),
    status_code: str(),
    external_status_id: int(),
  }),
  entry('billing.issued_bill', 'v1', { account_number: str(), statement_id: int() }),
  entry('billing.ledger.entry_posted', 'v1', { ledger: Ledger }),
  entry('billing.ledger.entry_posted', 'v2', { ledger: Ledger, entry: LedgerEntry }),
  entry('billing.ledger.entry_removed', 'v1', { ledger: Ledger }),
  entry('billing.ledger.entry_removed', 'v2', { ledger: Ledger, entry: LedgerEntryRemoval }),
  entry('billing.pathway_traversal.failed', 'v1', {
    pathway_id: str(),
    traversal_attempt_id: int(),
    traversal_attempt_context: obj(),
    trigger_id: int(),
    failed_action_name: str(),
    failed_action_error: str(),
    failed_at: str(),
  }),
  entry('billing.pathway_traversal.succeeded', 'v1', {
    pathway_id: str(),
    traversal_attempt_id: int(),
    trigger_id: int(),
    succeeded_at: str(),
  }),
  entry('billing.rebate.accepted', 'v1', rebateAccepted),
  entry('billing.rebate.created', 'v1', rebateWithApplication),
  entry('billing.rebate.updated', 'v1', rebateWithApplication),
  entry('billing.rebate.declined', 'v1', { ...rebateAccepted, decline_reason: str() }),
  entry('charging.priming.errored', 'v1', {
    errors: arr(str()),
    supply_point_id: str(),
    period_start: str(),
    period_end: str(),
  }),
  entry('late_payment_fee_waived', 'v1', { fee_id: int(), waived_at: str(), support_user_id: int() }),
  entry('late_payment_fee_application_service_started', 'v1', runStarted),
  entry('late_payment_fee_application_service_fee_applied', 'v1', {
    ...runStarted,
    fee_amount: int(),
    fee_date: str(),
    fee_type: opt(str()),
    charge_id: str(),
  }),
  entry('late_payment_fee_application_service_completed', 'v1', feesCounted),
  entry('late_payment_fee_calculation_service_started', 'v1', runStarted),
  entry('late_payment_fee_calculation_service_completed', 'v1', { ...runStarted, fees_calculated_count: int() }),
  entry('late_payment_fee_calculator_started', 'v1', runStarted),
  entry('late_payment_fee_calculator_fee_applied', 'v1', { ...runStarted, charge_id: str() }),
  entry('late_payment_fee_calculator_completed', 'v1', feesCounted),
] as const;
