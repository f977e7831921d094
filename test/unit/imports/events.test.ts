import type { CreatedAccount } from '../../../db/stores/accountStore';
import { findEntry, validatePayload } from '../../../events/catalogue';
import type { NewEvent } from '../../../events/outbox';
import { asText, pence } from '../../../imports/accountDataEvents';
import { accountCreatedEvents, type EventScope } from '../../../imports/events';
import { REFERENCE_CONSUMERS } from '../../hosts/natsAuth';

const scope: EventScope = { workflowId: 'account-import:DEMO_ENERGY:LEGACY-7', run: 2, externalAccountNumber: 'LEGACY-7', at: new Date('2026-11-21T10:15:02.118Z') };

/** An account as insertAccount returns it: none of the platform's data yet. */
function plain(): CreatedAccount {
  return {
    accountId: 40,
    accountNumber: 'A-0000ABCD',
    users: [
      { userId: 71, userNumber: 'U-0000AA01', email: 'jo@example.com', psrRecords: [], consents: [], metadata: [] },
      { userId: 72, userNumber: 'U-0000AA02', email: null, psrRecords: [], consents: [], metadata: [] },
    ],
    agreements: [
      { agreementId: 501, meterPointIdentifier: '2300111122226', validFrom: '2022-11-01', productCode: 'E-1R-VAR', businessContractIdentifier: null },
    ],
    metadata: [],
    campaigns: [{ slug: 'winter-support-2026', campaignNote: '', campaignName: null, expiryDate: null }],
    dunningPath: null,
    meterPoints: [],
    consents: [],
    business: null,
    depositAgreements: [],
    propertyMetadata: [],
    ledgerCount: 1,
  };
}

/** The same account with every piece of the platform's data the catalogue has an event for. */
function full(): CreatedAccount {
  const a = plain();
  a.business = { id: 9 };
  a.consents = [{ id: 31, type: 'MARKETING_EMAIL', value: 'ACCEPTED', signedAt: '2025-03-01T09:00:00Z' }];
  a.users[0]!.consents = [{ id: 31, type: { code: 'SMART_DATA', channel: 'web' }, value: 'REJECTED', signedAt: null }];
  a.users[1]!.metadata = [{ id: 61, key: 'crm_segment', value: 'gold' }, { id: 62, key: 'preferences', value: { contact: 'sms' } }];
  a.propertyMetadata = [{ id: 81, propertyId: 17, key: 'access_notes', value: 'Key with neighbour' }];
  a.depositAgreements = [
    { id: 91, reason: 'Poor credit history', depositAmount: '150.00', acceptedAt: '2025-01-10T12:00:00Z', fulfilledAt: '2025-02-10T12:00:00Z' },
    { id: 92, reason: 'Change of tenancy', depositAmount: '80.005', acceptedAt: '2025-04-01T08:30:00Z', fulfilledAt: null },
    { id: 93, reason: 'Paid before acceptance was recorded', depositAmount: '20', acceptedAt: null, fulfilledAt: '2025-05-01T00:00:00Z' },
  ];
  a.agreements[0]!.businessContractIdentifier = 'BC-2025-0042';
  a.campaigns = [{ slug: 'amr', campaignNote: 'from CRM', campaignName: 'AMR', expiryDate: '2027-03-31' }];
  return a;
}

const ofType = (events: NewEvent[], type: string) => events.filter((e) => e.type === type);
const key = (name: string) => `${scope.workflowId}:run-${scope.run}:${name}`;

describe('the events of a created account, for the platform data the catalogue has an event for', () => {
  const events = accountCreatedEvents(scope, full());

  it('validates every payload against its catalogue schema, and gives each event its own key', () => {
    for (const e of events) expect([e.type, validatePayload(e.type, e.version, e.data)]).toEqual([e.type, { ok: true }]);
    expect(new Set(events.map((e) => e.key)).size).toBe(events.length);
  });

  it("publishes business.created with the business row's id", () => {
    expect(ofType(events, 'business.created')).toEqual([expect.objectContaining({ version: 'v1', key: key('business.created'), data: { id: 9 } })]);
  });

  it("publishes consents.consent.created for the account's consents and each customer's, the signing identity naming whose", () => {
    expect(ofType(events, 'consents.consent.created').map((e) => [e.key, e.data])).toEqual([
      [
        key('consents.consent.created:account:31'),
        {
          signing_identity: { identity_type: 'account', identity: 'A-0000ABCD' },
          consent: { id: 31, consent_type_code: 'MARKETING_EMAIL', value: 'ACCEPTED', signed_at: '2025-03-01T09:00:00Z' },
        },
      ],
      [
        // Same row id in another table: the identity type keeps the keys apart.
        key('consents.consent.created:account_user:31'),
        {
          signing_identity: { identity_type: 'account_user', identity: 'U-0000AA01' },
          // A consent type that is not text travels as its JSON; no signed_at: the import's time, the platform's default.
          consent: { id: 31, consent_type_code: '{"code":"SMART_DATA","channel":"web"}', value: 'REJECTED', signed_at: '2026-11-21T10:15:02.118Z' },
        },
      ],
    ]);
  });

  it('publishes account_user_metadata.created per customer metadata entry, a value that is not text as its JSON', () => {
    expect(ofType(events, 'account_user_metadata.created').map((e) => [e.key, e.data])).toEqual([
      [key('account_user_metadata.created:61'), { user_id: 72, key: 'crm_segment', value: 'gold' }],
      [key('account_user_metadata.created:62'), { user_id: 72, key: 'preferences', value: '{"contact":"sms"}' }],
    ]);
  });

  it("publishes account_property_effective_period_metadata.created per supply address metadata entry, with the supply address's row id", () => {
    expect(ofType(events, 'account_property_effective_period_metadata.created').map((e) => [e.key, e.data])).toEqual([
      [key('account_property_effective_period_metadata.created:81'), { account_property_effective_period_id: 17, key: 'access_notes', value: 'Key with neighbour' }],
    ]);
  });

  it('publishes deposit_agreement.accepted when accepted_at is set and .fulfilled when fulfilled_at is, amounts in pence, on the first ledger', () => {
    const common = (i: number, reason: string, amount: number) => ({ deposit_key: `A-0000ABCD-D${i}`, reason, amount, account_number: 'A-0000ABCD', ledger_identifier: 'A-0000ABCD-L1' });
    expect(ofType(events, 'deposit_agreement.accepted').map((e) => [e.key, e.data])).toEqual([
      [key('deposit_agreement.accepted:91'), { ...common(1, 'Poor credit history', 15000), accepted_at: '2025-01-10T12:00:00Z' }],
      [key('deposit_agreement.accepted:92'), { ...common(2, 'Change of tenancy', 8001), accepted_at: '2025-04-01T08:30:00Z' }],
    ]);
    expect(ofType(events, 'deposit_agreement.fulfilled').map((e) => [e.key, e.data])).toEqual([
      [key('deposit_agreement.fulfilled:91'), { ...common(1, 'Poor credit history', 15000), fulfilled_at: '2025-02-10T12:00:00Z' }],
      [key('deposit_agreement.fulfilled:93'), { ...common(3, 'Paid before acceptance was recorded', 2000), fulfilled_at: '2025-05-01T00:00:00Z' }],
    ]);
  });

  it('publishes no deposit event for an account without a ledger to hold the deposit', () => {
    const noLedger = { ...full(), ledgerCount: 0 };
    expect(accountCreatedEvents(scope, noLedger).filter((e) => e.type.startsWith('deposit_agreement.'))).toEqual([]);
  });

  it("carries the agreement's business_contract_identifier, and the campaign's platform name and the account's expiry in it", () => {
    expect(ofType(events, 'agreement.created').map((e) => e.data)).toEqual([
      { agreement_id: 501, account_number: 'A-0000ABCD', valid_from: '2022-11-01', product_code: 'E-1R-VAR', business_contract_identifier: 'BC-2025-0042' },
    ]);
    expect(ofType(events, 'campaign_account.added').map((e) => e.data)).toEqual([
      { account_number: 'A-0000ABCD', campaign_name: 'AMR', campaign_slug: 'amr', campaign_account_expiry_date: '2027-03-31' },
    ]);
  });

  it("starts dunning_path_started on the path's start date, or on the import's day in London when none was sent", () => {
    const path = (startDate: string | null) => ({ ...plain(), dunningPath: { pathName: 'standard-domestic', startDate, dunningProcessId: 'DP-0000ABCD' } });
    const dunning = (s: EventScope, a: CreatedAccount) => ofType(accountCreatedEvents(s, a), 'dunning_path_started').map((e) => e.data);
    expect(dunning(scope, path('2026-12-01'))).toEqual([
      { dunning_path_name: 'standard-domestic', dunning_process_id: 'DP-0000ABCD', account_number: 'A-0000ABCD', created_note: 'Dunning path carried over by data import', start_date: '2026-12-01' },
    ]);
    // 23:30 UTC on 30 June is already 1 July in London (BST).
    expect(dunning({ ...scope, at: new Date('2026-06-30T23:30:00Z') }, path(null))).toEqual([expect.objectContaining({ start_date: '2026-07-01' })]);
  });

  it('publishes none of them for an account without that data, and the agreement and campaign events as before', () => {
    const before = accountCreatedEvents(scope, plain());
    expect(before.map((e) => e.type)).toEqual([
      'account.created',
      'account_user.created',
      'account_user.created',
      'agreement.created',
      'campaign_account.added',
      'data_import.import_process.complete',
    ]);
    expect(ofType(before, 'agreement.created')[0]!.data).toEqual({ agreement_id: 501, account_number: 'A-0000ABCD', valid_from: '2022-11-01', product_code: 'E-1R-VAR' });
    expect(ofType(before, 'campaign_account.added')[0]!.data).toEqual({ account_number: 'A-0000ABCD', campaign_name: 'winter-support-2026', campaign_slug: 'winter-support-2026' });
  });

  it("orders them after the account's users, agreements and campaigns, and before the import's complete", () => {
    const types = events.map((e) => e.type);
    expect(types.slice(0, 5)).toEqual(['account.created', 'account_user.created', 'account_user.created', 'agreement.created', 'campaign_account.added']);
    expect(types.slice(5, -1)).toEqual([
      'business.created',
      'consents.consent.created',
      'consents.consent.created',
      'account_user_metadata.created',
      'account_user_metadata.created',
      'account_property_effective_period_metadata.created',
      'deposit_agreement.accepted',
      'deposit_agreement.fulfilled',
      'deposit_agreement.accepted',
      'deposit_agreement.fulfilled',
    ]);
    expect(types.at(-1)).toBe('data_import.import_process.complete');
  });

  it('each has a description of its own in the catalogue, which the AsyncAPI document shows consumers', () => {
    const generic = (type: string, version: string) => new RegExp(`: ${type.replace(/\./g, '\\.')}, payload ${version}\\.$`);
    const described = [...new Set(events.map((e) => `${e.type} ${e.version}`))].map((k) => {
      const [type, version] = k.split(' ') as [string, string];
      return [k, generic(type, version).test(findEntry(type, version)!.description)];
    });
    expect(described.filter(([, isGeneric]) => isGeneric)).toEqual([]);
  });

  it("are each readable by the reference deployment's CRM (test/hosts/natsAuth.ts)", () => {
    const crm = REFERENCE_CONSUMERS.find((c) => c.name === 'crm')!;
    const readable = (type: string) => crm.subjects.some((s) => s.endsWith('.>') && `${type}.`.startsWith(s.slice(0, -1)));
    expect([...new Set(events.map((e) => e.type))].filter((t) => !readable(t))).toEqual([]);
  });
});

describe('pence', () => {
  it.each([
    ['150.00', 15000],
    ['150', 15000],
    ['0.5', 50],
    ['80.005', 8001],
    ['80.0049999999', 8000],
    ['-12.345', -1235],
    ['-0.001', 0],
    ['9999999999.9999999999', 1_000_000_000_000],
  ])('%s pounds is %d pence', (decimal, expected) => {
    expect(pence(decimal)).toBe(expected);
  });

  it('refuses text that is not a decimal', () => {
    expect(() => pence('12,50')).toThrow('not a decimal: 12,50');
  });
});

describe('asText', () => {
  it('keeps a string and writes anything else as JSON, an absent value as null', () => {
    expect([asText('gold'), asText(7), asText(true), asText({ a: [1] }), asText(null), asText(undefined)]).toEqual(['gold', '7', 'true', '{"a":[1]}', 'null', 'null']);
  });
});
