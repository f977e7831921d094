import { section } from './entry';
import { arr, int, obj, opt, str } from './fields';

const entry = section('Interface, approval and authentication events');

export const INTERFACE_EVENTS = [
  entry('apis.api_exception.context_updated', 'v1', { external_identifier: str(), previous_context_id: int() }),
  entry('apis.api_exception.updated', 'v1', {
    external_identifier: str(),
    changes: obj(),
    account_number: opt(str()),
  }),
  entry('approvals.approval.created', 'v1', {
    approval_id: str(),
    process_type: str(),
    requested_at: str(),
    assigned_to_id: int(),
    requested_by_id: int(),
  }),
  entry('approvals.approval.approved', 'v1', {
    approval_id: str(),
    process_type: str(),
    process_data: obj(),
    approved_at: str(),
  }),
  entry('approvals.approval.rejected', 'v1', {
    approval_id: str(),
    process_type: str(),
    process_data: obj(),
    rejected_at: str(),
  }),
  entry('approvals.approval_request.approved', 'v1', {
    approval_id: str(),
    process_type: str(),
    request_id: str(),
    approved_by_id: int(),
    approved_at: str(),
    approval_reason: str(),
  }),
  entry('approvals.approval_request.assigned', 'v1', {
    approval_id: str(),
    process_type: str(),
    request_id: str(),
    assigned_to_id: int(),
    assigned_at: str(),
  }),
  entry('approvals.approval_request.rejected', 'v1', {
    approval_id: str(),
    process_type: str(),
    request_id: str(),
    rejected_by_id: int(),
    rejection_reason: str(),
    rejected_at: str(),
  }),
  entry('auth-server.access-token.issued', 'v1', { delegate: str(), viewer: str(), viewer_id: int() }),
  entry('auth_server.account_user.generate_mfa_challenge_error', 'v1', {
    account_user_id: int(),
    account_user_number: str(),
    device: str(),
  }),
  entry('auth_server.account_user.logged_in', 'v1', {
    account_user_id: int(),
    account_user_number: str(),
    login_method: str(),
    mfa_device_type: str(),
  }),
  entry('auth_server.account_user.login_denied', 'v1', {
    account_user_id: int(),
    account_user_number: str(),
    enforced_security_rule_ids: arr(int()),
  }),
  entry('auth_server.account_user.login_failed', 'v1', {
    account_user_id: int(),
    account_user_number: str(),
    step: str(),
    failure_reason: str(),
    brand: str(),
    user_brands: arr(str()),
  }),
  entry('auth_server.account_user.login_step_completed', 'v1', {
    account_user_id: int(),
    account_user_number: str(),
    step: str(),
    mfa_device_type: str(),
  }),
] as const;
