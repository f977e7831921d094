import { checkPlatformFields } from '../../../account/rules/platform';
import { ELEC } from './helpers';
import { elec, type Mutate } from './mutate';
import { ruleErrorsAfter } from './ruleContext';

const errorsAfter = (mutate: Mutate) => ruleErrorsAfter(checkPlatformFields, mutate);
const admin = (from: string | null, to: string | null) => ({ given_name: 'Sam', family_name: 'Lee', effective_from: from, effective_to: to });

describe('the end of a platform period is not before its start', () => {
  it.each<[string, Mutate, string[]]>([
    ['a property administrator ending the instant it starts validates', (a) => (a.supply_addresses[0].property_administrators = [admin('2024-01-01T09:00:00Z', '2024-01-01T09:00:00Z')]), []],
    [
      'a property administrator ending before it starts is start_date_later_than_end_date',
      (a) => (a.supply_addresses[0].property_administrators = [admin('2024-01-01T09:00:00Z', '2023-12-31T09:00:00Z')]),
      ['start_date_later_than_end_date@supply_addresses.0.property_administrators.0.effective_to'],
    ],
    [
      'date-times compare as instants: 10:00+01:00 is before 09:30Z',
      (a) => (a.supply_addresses[0].property_administrators = [admin('2024-06-01T09:30:00Z', '2024-06-01T10:00:00+01:00')]),
      ['start_date_later_than_end_date@supply_addresses.0.property_administrators.0.effective_to'],
    ],
    ['a property administrator with null dates is not compared', (a) => (a.supply_addresses[0].property_administrators = [admin(null, '2023-12-31T09:00:00Z')]), []],
    ['a supply ending before it starts is start_date_later_than_end_date', (a) => (elec(a).supply_end_date = '2022-10-31'), [`start_date_later_than_end_date@${ELEC}.supply_end_date`]],
    ['a supply ending the day it starts validates', (a) => (elec(a).supply_end_date = '2022-11-01'), []],
    [
      'a customer leaving a supply address before arriving is start_date_later_than_end_date',
      (a) => (a.supply_addresses[0].customer_at_supply_address_to_date = '2020-01-31'),
      ['start_date_later_than_end_date@supply_addresses.0.customer_at_supply_address_to_date'],
    ],
    [
      'a commission contract ending before it starts is start_date_later_than_end_date',
      (a) => (a.commission_contracts = [{ affiliate_organisation_name: 'Broker Ltd', effective_from: '2025-01-01', effective_to: '2024-12-31', mpxn: '2300111122226', status: 'PAID' }]),
      ['start_date_later_than_end_date@commission_contracts.0.effective_to'],
    ],
    [
      'a contribution agreement ending before it starts is start_date_later_than_end_date',
      (a) => (a.contribution_agreements = [{ active_period_start_date: '2025-01-01', active_period_end_date: '2024-12-31', amount: '5.00', interval: 'MONTHLY', scheme: 'TREES' }]),
      ['start_date_later_than_end_date@contribution_agreements.0.active_period_end_date'],
    ],
    [
      'a contribution period ending before it starts is start_date_later_than_end_date',
      (a) => (a.contribution_agreements = [{ active_period_start_date: '2025-01-01', amount: '5.00', interval: 'MONTHLY', scheme: 'TREES', periods: [{ start_date: '2025-02-01', end_date: '2025-01-31' }] }]),
      ['start_date_later_than_end_date@contribution_agreements.0.periods.0.end_date'],
    ],
    [
      'a deposit fulfilled before it was accepted is start_date_later_than_end_date',
      (a) => (a.deposit_agreements = [{ deposit_amount: '150.00', reason: 'Credit check', accepted_at: '2025-03-01T10:00:00Z', fulfilled_at: '2025-02-28T10:00:00Z' }]),
      ['start_date_later_than_end_date@deposit_agreements.0.fulfilled_at'],
    ],
    [
      'a partner organisation valid to before valid from is start_date_later_than_end_date',
      (a) => (a.partner_organisations = [{ organisation_number: 'ORG-1', valid_from: '2025-01-01T00:00:00Z', valid_to: '2024-01-01T00:00:00Z' }]),
      ['start_date_later_than_end_date@partner_organisations.0.valid_to'],
    ],
    [
      'a campaign expiring the day it starts is start_date_same_as_end_date',
      (a) => Object.assign(a.account_campaigns[0], { start_date: '2025-01-01', expiry_date: '2025-01-01' }),
      ['start_date_same_as_end_date@account_campaigns.0.expiry_date'],
    ],
    ['a campaign expiring the day after it starts validates', (a) => Object.assign(a.account_campaigns[0], { start_date: '2025-01-01', expiry_date: '2025-01-02' }), []],
    ['a note unpinned before it was written is note_unpin_at_earlier_than_creation_date', (a) => (a.notes[0].unpin_at = '2026-06-14T09:30:00Z'), ['note_unpin_at_earlier_than_creation_date@notes.0.unpin_at']],
    [
      'a portfolio note is held to the same rule',
      (a) => (a.portfolio = { notes: [{ body: 'x', created_at: '2026-06-14T09:31:00Z', unpin_at: '2026-06-13T09:31:00Z' }] }),
      ['note_unpin_at_earlier_than_creation_date@portfolio.notes.0.unpin_at'],
    ],
  ])('%s', (_name, mutate, expected) => {
    expect(errorsAfter(mutate)).toEqual(expected);
  });
});
