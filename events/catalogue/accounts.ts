import { section } from './entry';
import { arr, bool, int, obj, opt, str } from './fields';
import { AccountCommsPreferencesChanges, PsrRecord } from './shared';

const entry = section('Account and user events');

const accountMetadata = { account_number: str(), key: str(), value: str() };
const periodMetadata = { account_property_effective_period_id: int(), key: str(), value: str() };
const accountUser = {
  user_id: int(),
  user_email: str(),
  user_number: str(),
  linked_accounts: arr(obj()),
  user_identifiers: opt(obj()),
  initiator_type: opt(str()),
  is_customer_initiated: opt(bool()),
};
const verification = { user_number: str(), verification_id: int(), verification_type: str() };
const userMetadata = { user_id: int(), key: str(), value: str() };
const createdRole = { code: str(), permissions: arr(str()) };
const updatedRole = {
  code: str(),
  display_name: opt(str()),
  description: opt(str()),
  permissions: opt(arr(str())),
};

export const ACCOUNT_EVENTS = [
  entry('account.communications_preferences_updated', 'v1', {
    account_number: str(),
    changes: AccountCommsPreferencesChanges,
  }),
  entry(
    'account.created',
    'v1',
    { account_number: str(), account_user_emails: arr(str()), is_imported: opt(bool()) },
    {
      description: 'An account was created; this service emits it with is_imported: true when an import commits.',
      example: { account_number: 'A-3F9C21B7', account_user_emails: ['jo.bloggs@example.com'], is_imported: true },
    },
  ),
  entry('account.occupied', 'v1', { account_number: str() }),
  entry('account.reactivated', 'v1', { account_number: str(), previous_status: str(), reactivation_source: str() }),
  entry('account.smart-meter-read-permission-changed', 'v1', {
    account_number: str(),
    old_permission: str(),
    new_permission: str(),
    effective_from: str(),
    changed_by_id: str(),
    changed_by_type: str(),
  }),
  entry('account.updated', 'v1', {
    account_number: str(),
    account_user_emails: arr(str()),
    changes: obj(),
    is_override: opt(bool()),
  }),
  entry('account_metadata.created', 'v1', accountMetadata, {
    description: 'A metadata entry was added to an account; this service emits one per imported metadata entry.',
  }),
  entry('account_metadata.removed', 'v1', accountMetadata),
  entry('account_metadata.updated', 'v1', { account_number: str(), changes: obj() }),
  entry('account_property_effective_period_metadata.created', 'v1', periodMetadata, {
    description:
      "A metadata entry was added to an account's period at a property; this service emits one per imported supply address metadata entry (the period: the supply address).",
  }),
  entry('account_property_effective_period_metadata.removed', 'v1', periodMetadata),
  entry('account_property_effective_period_metadata.updated', 'v1', {
    account_property_effective_period_id: int(),
    changes: obj(),
  }),
  entry('account_user.created', 'v1', accountUser, {
    description: 'An account user was created; this service emits one per imported customer.',
  }),
  entry('account_user.removed', 'v1', accountUser),
  entry('account_user.updated', 'v1', { ...accountUser, changes: obj(), is_override: opt(bool()) }),
  entry('account_user.password_changed', 'v1', { user_id: int() }),
  entry('account_user.password_reset_requested', 'v1', { account_user_id: int(), account_user_number: str() }),
  entry(
    'account_user.psr_records_updated',
    'v1',
    {
      user_id: int(),
      created_records: arr(PsrRecord),
      updated_records: arr(PsrRecord),
      deleted_records: arr(PsrRecord),
    },
    { description: "An account user's priority services register records changed; emitted for imported PSR records." },
  ),
  entry('account_user.verification_started', 'v1', verification),
  entry('account_user.verification_completed', 'v1', verification),
  entry('account_user_metadata.created', 'v1', userMetadata, {
    description: 'A metadata entry was added to an account user; this service emits one per imported customer metadata entry.',
  }),
  entry('account_user_metadata.removed', 'v1', userMetadata),
  entry('account_user_metadata.updated', 'v1', { user_id: int(), changes: obj() }),
  entry('affiliates.affiliate-account-contract-created', 'v1', {
    affiliate_account_contract_id: int(),
    affiliate_contract_id: int(),
    account_number: str(),
    fuel: str(),
  }),
  entry('loyalty-points.user-role-removal', 'v1', { user_id: int(), account_id: int() }),
  entry('customer_access.partner_roles.created', 'v1', createdRole),
  entry('customer_access.partner_user_roles.created', 'v1', createdRole),
  entry('customer_access.partner_roles.updated', 'v1', updatedRole),
  entry('customer_access.partner_user_roles.updated', 'v1', updatedRole),
  entry('customer_access.user_roles.updated', 'v1', updatedRole),
  entry('customer_access.user_roles.created', 'v1', { code: str(), permissions: arr(str()), name: str() }),
  entry('internal_company.created', 'v1', {
    id: str(),
    displayable_number: str(),
    name: str(),
    primary_registration_number: str(),
    secondary_registration_number: str(),
    primary_tax_identifier_number: str(),
    actor: obj(),
    legal_address: obj(),
  }),
  entry('business.created', 'v1', { id: int() }, {
    description: "A business was created; this service emits it for an imported account's business.",
  }),
  entry('business.updated', 'v1', { id: int(), changes: obj() }),
  entry('business_operations_team.updated', 'v1', { id: int(), operations_team_id: int() }),
  entry(
    'campaign_account.added',
    'v1',
    {
      account_number: str(),
      campaign_name: str(),
      campaign_slug: opt(str()),
      campaign_expiry_date: opt(str()),
      campaign_account_expiry_date: opt(str()),
    },
    { description: 'An account joined a campaign; this service emits one per imported campaign.' },
  ),
  entry('campaign_account.removed', 'v1', { account_number: str(), campaign_name: str(), campaign_slug: opt(str()) }),
  entry('campaign_account.updated', 'v1', {
    account_number: str(),
    campaign_name: str(),
    campaign_slug: opt(str()),
    changes: obj(),
  }),
] as const;
