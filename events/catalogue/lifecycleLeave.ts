import { section } from './entry';
import { arr, bool, int, opt, str } from './fields';
import { LeaveSupplyPoint, LeaveTerminatedSupplyPoint, LeaveTerminationInitiatedSupplyPoint } from './shared';

const entry = section('Lifecycle events: leave supplier, status, sale');

const leaveProcess = { account_number: str(), leave_supplier_process_number: str(), subtype: str() };
const leaveWithSupplyPoints = {
  account_number: str(),
  leave_supplier_process_id: int(),
  leave_supplier_process_number: str(),
  supply_points: arr(LeaveSupplyPoint),
};
const requestedBeforeTimestamp = {
  account_number: str(),
  leave_supplier_process_id: int(),
  leave_supplier_process_subtype: str(),
  supply_points: arr(LeaveSupplyPoint),
  requested_supply_end_at: str(),
  requested_supply_end_date: str(),
};
const requestedAfterTimestamp = { is_passive: bool(), passive_loss_instigated_supply_point_id: opt(int()) };
const requestedV2 = { ...requestedBeforeTimestamp, requested_at: str(), ...requestedAfterTimestamp };
// "as requested-v2 with updated_at str in place of requested_at"
const updatedV2 = { ...requestedBeforeTimestamp, updated_at: str(), ...requestedAfterTimestamp };
const supplyPointJourney = {
  account_number: str(),
  leave_supplier_process_number: str(),
  supply_point: LeaveSupplyPoint,
  subtype: str(),
};

export const LIFECYCLE_LEAVE_EVENTS = [
  entry('lifecycle.leave-supplier.await-post-deactivation-flow-step.initiated', 'v1', leaveProcess),
  entry('lifecycle.leave-supplier.await-post-termination-flow-step.initiated', 'v1', leaveProcess),
  entry('lifecycle.leave-supplier.await-pre-termination-flow-step.initiated', 'v1', leaveProcess),
  entry('lifecycle.leave-supplier.cancellation-requested', 'v2', leaveWithSupplyPoints),
  entry('lifecycle.leave-supplier.cancelled', 'v2', leaveWithSupplyPoints),
  entry('lifecycle.leave-supplier.reversal-requested', 'v2', leaveWithSupplyPoints),
  entry('lifecycle.leave-supplier.completed', 'v3', {
    account_number: str(),
    leave_supplier_process_id: int(),
    leave_supplier_process_number: str(),
    leave_supplier_process_subtype: str(),
    supply_points: arr(LeaveTerminatedSupplyPoint),
  }),
  entry('lifecycle.leave-supplier.requested', 'v2', requestedV2),
  entry('lifecycle.leave-supplier.requested', 'v3', { ...requestedV2, leave_supplier_process_number: str() }),
  entry('lifecycle.leave-supplier.updated', 'v2', updatedV2),
  entry('lifecycle.leave-supplier.updated', 'v3', { ...updatedV2, leave_supplier_process_number: str() }),
  entry('lifecycle.leave-supplier.supply-point-journey-await-post-termination-flow-step.initiated', 'v1', {
    account_number: str(),
    leave_supplier_process_number: str(),
    supply_point: LeaveTerminatedSupplyPoint,
    subtype: str(),
  }),
  entry(
    'lifecycle.leave-supplier.supply-point-journey-await-pre-agreement-termination-flow-step.initiated',
    'v1',
    supplyPointJourney,
  ),
  entry('lifecycle.leave-supplier.supply-point-journey-await-pre-termination-flow-step.initiated', 'v1', supplyPointJourney),
  entry('lifecycle.leave-supplier.termination.confirmed', 'v2', {
    account_number: str(),
    leave_supplier_process_id: int(),
    leave_supplier_process_number: str(),
    leave_supplier_process_subtype: str(),
    supply_point: LeaveTerminatedSupplyPoint,
  }),
  entry('lifecycle.leave-supplier.termination.initiated', 'v1', {
    account_number: str(),
    leave_supplier_process_number: str(),
    leave_supplier_process_subtype: str(),
    supply_point: LeaveTerminationInitiatedSupplyPoint,
  }),
  entry('lifecycle.status-changed', 'v1', {
    process_number: str(),
    account_number: str(),
    new_status: str(),
    previous_status: str(),
  }),
  // The one entry versioned 1.0.0 rather than vN; its subject writes the version as 1_0_0.
  entry('lifecycle.support-site.sale', '1.0.0', { support_user_id: str(), supply_start_date: str(), trigger_action: str() }),
] as const;
