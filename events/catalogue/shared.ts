import { arr, bool, closed, int, obj, opt, str } from './fields';

// The "Shared types" of docs/spec/events-catalogue.md that the entries use, written once. Each is
// exported as a closed object schema; the ones that payloads extend ("C8 plus ...", "InkMessage
// plus vendor") also export their field map (`...Fields`) so the extension is a spread, not a
// copy. Shared types no entry uses (RemovedMeter, HouseMove*, Payment*) are left out: they would
// be schemas nothing checks.

export const AmendedSubject = closed({ type: str(), identifier: str(), effective_from: str(), effective_to: str() });
export const ContractJourney = closed({ number: str(), type: str(), requested_at: str() });
export const SubjectContractJourney = closed({ number: str(), subject_number: str() });
// Typed `[bool]` / `[str]` in the spec (not bool / str): kept as written.
export const AccountCommsPreferencesChanges = closed({
  requires_postal_comms: opt(arr(bool())),
  preferred_language_for_comms: opt(arr(str())),
  document_accessibility: opt(arr(str())),
});
export const PsrRecord = closed({ description: str(), electricity_industry_code: str(), gas_industry_code: str() });
export const Product = closed({ code: str(), market_name: str(), brand_code: str() });
/** Ledger (billing). */
export const Ledger = closed({ account: closed({ number: str() }), number: str(), id: opt(str()) });

const LedgerEntryFlags = {
  is_charge: bool(),
  is_credit: bool(),
  is_payment: bool(),
  is_repayment: bool(),
  is_reversal: bool(),
  is_reversed: bool(),
};
export const LedgerEntry = closed({ id: int(), ...LedgerEntryFlags, source_id: opt(int()), source_type: opt(str()) });
export const LedgerEntryRemoval = closed({ id: int(), amount: int(), ...LedgerEntryFlags, source_reason: str() });
export const ChargePeriod = closed({ start_at: str(), end_at: str() });
export const Consent = closed({ id: int(), consent_type_code: str(), value: str(), signed_at: str() });
export const SigningIdentity = closed({ identity_type: str(), identity: str() });
export const CreateMembership = closed({ contract_identifier: str(), valid_from: str(), valid_to: opt(str()) });
export const Membership = closed({ contract_identifier: str(), valid_from: str(), valid_to: str() });
export const Trait = closed({ identifier: str(), type: str(), data: obj() });
export const Period = closed({ start: str(), end: str() });
export const Version = closed({ identifier: str(), effective_period: Period, system_period: Period, traits: arr(Trait) });
const DispatchPayload = closed({ begin: str(), end: str(), power: int() });
export const FlexDeviceDisconnectedPayload = closed({ cause: str(), disconnected_soc: int() });
export const FlexDeviceOptimisationCreatedPayload = closed({
  dispatches: arr(DispatchPayload),
  achievable_target_soc: int(),
  energy_capacity: int(),
  start_soc: int(),
  user_target_soc: int(),
  optimization_begin: str(),
  optimization_end: str(),
  is_reoptimization: bool(),
  force_v1g_charging: bool(),
  fleet_id: str(),
});
export const InkAction = closed({ code: str(), succeeded: bool(), stop_further_evaluation: bool() });
const InkContent = closed({
  from_address: opt(str()),
  subject: opt(str()),
  to_addresses: opt(arr(str())),
  tags: arr(str()),
});
export const InkMessageContent = closed({ message_id: int(), occurred_at: str(), channel: str(), content: InkContent });
const InkMessageFields = { relay_id: str(), vendor_id: str(), channel: str(), occurred_at: str() };
export const InkMessage = closed(InkMessageFields);
export const InkMessageWithVendor = closed({ ...InkMessageFields, vendor: str() });
export const InkConversation = closed({ conversation_relay_id: str(), account_number: str(), message: InkMessage });
export const InkFailureData = closed({ type: str(), reason: str(), occurred_at: str() });
export const EnrollmentSupplyPoint = closed({
  market_name: str(),
  external_identifier: str(),
  confirmed_ssd: str(),
  was_cancelled: bool(),
});
export const JoinSupplyPoint = closed({ external_identifier: str(), market_name: str(), requested_supply_start_date: str() });
export const JoinActivatedSupplyPoint = closed({
  external_identifier: str(),
  market_name: str(),
  confirmed_supply_start_date: str(),
});
export const JoinActivationInitiatedSupplyPoint = closed({ external_identifier: str(), market_name: str() });
export const JoinAgreement = closed({ id: int(), valid_from: str(), valid_to: str(), product_code: str() });
export const ContractReferences = closed({
  account_contract_identifier: opt(str()),
  business_contract_identifier: opt(str()),
});
export const SupplyPeriodData = closed({ id: int(), supply_start_at: str(), supply_end_at: str() });
export const LeaveSupplyPoint = closed({ market_identifier: str(), external_identifier: str(), market_name: str() });
export const LeaveTerminatedSupplyPoint = closed({
  external_identifier: str(),
  market_name: str(),
  confirmed_supply_end_date: str(),
});
export const LeaveTerminationInitiatedSupplyPoint = closed({
  external_identifier: str(),
  market_name: str(),
  requested_supply_end_date: str(),
});
/** MeterPoint (migration). */
export const MeterPoint = closed({ id: int(), mpan: str() });
export const Register = closed({
  register_id: str(),
  register_type: str(),
  measurement_quantity: str(),
  multiplier: str(),
  associated_meter_serial: str(),
  associated_register_id: str(),
  digits: int(),
  is_main: bool(),
});
export const Meter = closed({
  serial_number: str(),
  location: str(),
  make_and_type: str(),
  meter_asset_provider_mpid: str(),
  meter_type: str(),
  retrieval_method: str(),
  retrieval_method_effective_from: str(),
  meter_cop: str(),
  meter_cop_dispensation: str(),
  communications_address: str(),
  communications_method: str(),
  vt_ratio: str(),
  installation_date: str(),
  timing_device_id: str(),
  ct_ratio: str(),
  current_rating: int(),
  is_tele_switch: bool(),
  registers: arr(Register),
});

/** C8 (conversation set): ink conversation events carry these fields at the top level of the payload. */
export const C8Fields = {
  conversation_id: int(),
  conversation_relay_id: str(),
  account_number: str(),
  latest_contacted_account_user_number: str(),
  support_user_id: int(),
  actor_type: str(),
  actor_id: int(),
  organisation_id: int(),
};

/**
 * DisputedReading (22 fields), in the spec's order: the order matters because the cut-off
 * `disputed_opening_reading.queried.by_us` entry shows the fields only up to `criteria`.
 */
export const DisputedReadingFields = {
  mprn: str(),
  supplier: str(),
  reference_number: int(),
  transfer_date: str(),
  initiating_organisation: str(),
  io_contact_name: str(),
  recipient_organisation: str(),
  ro_contact_name: str(),
  meter_serial: str(),
  meter_digits: int(),
  house_name_number: str(),
  postcode: str(),
  disputed_reading: int(),
  disputed_reading_is_actual: bool(),
  proposed_reading: int(),
  proposed_reading_is_actual: bool(),
  status_response: str(),
  root_cause: str(),
  rejection_acceptance_code: str(),
  criteria: str(),
  comments: str(),
  is_gain: bool(),
};
export const DisputedReading = closed(DisputedReadingFields);
/** The DisputedReading fields the spec shows before it is cut off (up to and including `criteria`). */
const { comments: _comments, is_gain: _isGain, ...upToCriteria } = DisputedReadingFields;
export const DisputedReadingFieldsUpToCriteria = upToCriteria;
