import { section } from './entry';
import { arr, int, opt, str } from './fields';
import {
  AmendedSubject,
  Consent,
  ContractJourney,
  CreateMembership,
  Membership,
  Period,
  SigningIdentity,
  SubjectContractJourney,
  Trait,
  Version,
} from './shared';

const entry = section('Consent, contract and contract group events');

const consentChange = { signing_identity: SigningIdentity, consent: Consent };
const journeyStarted = {
  contract_journey: ContractJourney,
  contract_identifier: str(),
  occurred_at: str(),
  subject_contract_journeys: arr(SubjectContractJourney),
};
const contractOccurred = { contract_identifier: str(), occurred_at: str() };

export const CONSENT_EVENTS = [
  entry('consents.consent.created', 'v1', consentChange, {
    description: "A consent was recorded; this service emits one per imported consent of the account or of a customer.",
  }),
  entry('consents.consent.updated', 'v1', consentChange),
  entry('consents.settlement-granularity.changed', 'v1', {
    mpan: str(),
    granularity_value: str(),
    effective_from: str(),
  }),
  entry('contract-groups.created', 'v1', {
    contract_group_identifier: str(),
    group_type: str(),
    valid_from: str(),
    valid_to: opt(str()),
    managing_party_identifier: opt(str()),
    external_identifier: opt(str()),
    name: opt(str()),
    memberships: arr(CreateMembership),
    traits: arr(Trait),
  }),
  entry('contract-groups.memberships-changed', 'v1', {
    contract_group_identifier: str(),
    effective_at: str(),
    memberships_started: arr(Membership),
    memberships_ended: arr(Membership),
  }),
  entry('contract-groups.version-created', 'v1', {
    contract_group_identifier: str(),
    effective_period: Period,
    superseded_versions: arr(Version),
    created_versions: arr(Version),
  }),
  entry('contracts.actualized', 'v1', {
    contract_identifier: str(),
    version_reference: int(),
    occurred_at: str(),
    for_subjects: arr(str()),
  }),
  entry('contracts.created', 'v1', { ...contractOccurred, sales_record_identifier: opt(str()) }),
  entry('contracts.expired', 'v1', { ...contractOccurred, valid_to: str() }),
  entry('contracts.expiry-approaching', 'v1', { ...contractOccurred, days_before_expiry: int() }),
  entry('contracts.journeys.creation.started', 'v1', journeyStarted),
  entry('contracts.journeys.termination.started', 'v1', journeyStarted),
  entry('contracts.journeys.variation.started', 'v1', {
    contract_journey: ContractJourney,
    contract_identifier: str(),
    occurred_at: str(),
  }),
  entry('contracts.rescinded', 'v1', contractOccurred),
  entry('contracts.revoked', 'v1', contractOccurred),
  entry('contracts.terminated', 'v1', contractOccurred),
  entry('contracts.terms-varied', 'v1', contractOccurred),
  entry('contracts.subject-amended', 'v1', {
    ...contractOccurred,
    added: arr(AmendedSubject),
    updated: arr(AmendedSubject),
    removed: arr(AmendedSubject),
  }),
] as const;
