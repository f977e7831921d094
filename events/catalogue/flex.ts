import { section } from './entry';
import { bool, int, obj, opt, str } from './fields';
import { FlexDeviceDisconnectedPayload, FlexDeviceOptimisationCreatedPayload } from './shared';

const entry = section('Flexible device, goods and leads events');

const flexDevice = { account_number: str(), property_id: int(), device_id: str(), site_id: str(), device_type: str() };

export const FLEX_EVENTS = [
  entry('flex_device.deauthenticated', 'v1', { ...flexDevice, payload: opt(obj()) }),
  entry('flex_device.registered', 'v1', { ...flexDevice, payload: opt(obj()) }),
  entry('flex_device.disconnected', 'v1', { ...flexDevice, payload: FlexDeviceDisconnectedPayload }),
  entry('flex_device.optimisation_created', 'v1', { ...flexDevice, payload: FlexDeviceOptimisationCreatedPayload }),
  entry('goods.purchase-created', 'v1', { purchase_id: int(), account_id: int(), support_user_id: opt(int()) }),
  entry('goods.quote.created-for-account', 'v1', {
    account_number: str(),
    market_name: str(),
    quote_id: int(),
    client_params: obj(),
    lead_id: int(),
  }),
  entry('goods.quote.created-without-account', 'v1', {
    market_name: str(),
    quote_id: int(),
    contact_info: obj(),
    client_params: obj(),
    lead_id: int(),
  }),
  entry('complex_quoting.cost_calculation_finished', 'v1', {
    quote_configuration_number: str(),
    succeeded: bool(),
    triggered_by_id: int(),
  }),
  entry('leads.lead.stage-updated', 'v1', { lead_number: str(), funnel_code: str(), stage: str() }),
  entry('leads.opportunity.document-attached-to-opportunity', 'v1', {
    opportunity_number: str(),
    attachment_id: int(),
    category: str(),
  }),
  entry('leads.opportunity.offer-group.created', 'v2', { opportunity_number: str(), offer_group_identifier: str() }),
  entry('leads.opportunity.stage-updated', 'v1', {
    opportunity_number: str(),
    funnel_code: str(),
    stage: str(),
    updated_by_user_id: opt(int()),
  }),
] as const;
