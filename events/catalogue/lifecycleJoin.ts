import { section } from './entry';
import { arr, int, str } from './fields';
import {
  ContractReferences,
  EnrollmentSupplyPoint,
  JoinActivatedSupplyPoint,
  JoinActivationInitiatedSupplyPoint,
  JoinAgreement,
  JoinSupplyPoint,
  SupplyPeriodData,
} from './shared';

const entry = section('Lifecycle events: enrolment and join supplier');

const joinProcess = { account_number: str(), join_supplier_process_number: str(), subtype: str() };
const activation = { ...joinProcess, activation_journey_type: str() };
const withSupplyPoints = { ...joinProcess, supply_points: arr(JoinSupplyPoint) };
const paymentInstructionsStep = {
  join_supplier_process_id: int(),
  join_supplier_process_number: str(),
  account_number: str(),
};

export const LIFECYCLE_JOIN_EVENTS = [
  entry('lifecycle.enrollment.loyalty-points-qualification-reversed', 'v1', {
    join_supplier_process_number: str(),
    account_number: str(),
    supply_points_no_longer_coming_on_supply: arr(EnrollmentSupplyPoint),
    all_supply_points: arr(EnrollmentSupplyPoint),
  }),
  entry('lifecycle.enrollment.supply-status-qualifies-account-for-loyalty-point', 'v2', {
    join_supplier_process_id: int(),
    join_supplier_process_number: str(),
    account_number: str(),
    supply_points_past_ssd: arr(EnrollmentSupplyPoint),
    all_supply_points: arr(EnrollmentSupplyPoint),
  }),
  entry('lifecycle.join-supplier.activation.initiated', 'v1', {
    ...activation,
    supply_point: JoinActivationInitiatedSupplyPoint,
  }),
  entry('lifecycle.join-supplier.activation.completed', 'v1', { ...activation, supply_point: JoinActivatedSupplyPoint }),
  entry('lifecycle.join-supplier.agreement.created', 'v1', {
    account_number: str(),
    join_supplier_process_number: str(),
    supply_point: JoinActivatedSupplyPoint,
    agreements: arr(JoinAgreement),
    contract_references: ContractReferences,
  }),
  entry('lifecycle.join-supplier.await-post-activation-flow-step.initiated', 'v1', joinProcess),
  entry('lifecycle.join-supplier.await-pre-activation-flow-step.initiated', 'v1', joinProcess),
  entry('lifecycle.join-supplier.await-pre-discovery-flow-step.initiated', 'v1', joinProcess),
  entry('lifecycle.join-supplier.cancellation-requested', 'v1', withSupplyPoints),
  entry('lifecycle.join-supplier.cancelled', 'v1', withSupplyPoints),
  entry('lifecycle.join-supplier.reversal-requested', 'v1', withSupplyPoints),
  entry('lifecycle.join-supplier.reversed', 'v1', withSupplyPoints),
  entry('lifecycle.join-supplier.completed', 'v1', { ...joinProcess, supply_points: arr(JoinActivatedSupplyPoint) }),
  entry('lifecycle.join-supplier.requested', 'v1', { ...withSupplyPoints, requested_at: str() }),
  entry('lifecycle.join-supplier.supply-period.created', 'v1', {
    account_number: str(),
    join_supplier_process_number: str(),
    supply_point: JoinActivatedSupplyPoint,
    supply_period: SupplyPeriodData,
    contract_references: ContractReferences,
  }),
  entry('lifecycle.join-supplier.supply-point-journey-await-post-activation-flow-step.initiated', 'v1', {
    account_number: str(),
    join_supplier_process_number: str(),
    supply_point: JoinActivatedSupplyPoint,
    subtype: str(),
  }),
  entry('lifecycle.join-supplier.supply-point-journey-await-pre-activation-flow-step.initiated', 'v1', {
    account_number: str(),
    join_supplier_process_number: str(),
    supply_point: JoinSupplyPoint,
    subtype: str(),
  }),
  entry('lifecycle.join_supplier._ensure_payment_instructions.step_initiated', 'v2', paymentInstructionsStep),
  entry('lifecycle.join_supplier._ensure_payment_instructions.step_completed', 'v2', paymentInstructionsStep),
  entry('lifecycle.join_supplier.terms-and-conditions.accepted', 'v2', {
    join_supplier_process_id: int(),
    join_supplier_process_number: str(),
  }),
] as const;
