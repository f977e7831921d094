import type { CreatedAccount } from '../../../db/stores/accountStore';
import { accountCreatedEvents } from '../../../imports/events';

const scope = { workflowId: 'DEMO_ENERGY:A-1', run: 1, externalAccountNumber: 'A-1', at: new Date('2026-11-21T10:00:00Z') };
const created = (campaigns: CreatedAccount['campaigns']): CreatedAccount => ({
  accountId: 1, accountNumber: 'A00000001', users: [], agreements: [], metadata: [], campaigns, dunningPath: null, meterPoints: [],
  consents: [], business: null, depositAgreements: [], propertyMetadata: [], ledgerCount: 1,
});

describe('campaign_account.added of an imported account', () => {
  it('names a campaign sent by its slug by the slug, and one sent by its campaign_name by that name, without a slug', () => {
    const events = accountCreatedEvents(scope, created([
      { slug: 'winter-support-2026', campaignName: null, campaignNote: '', expiryDate: null },
      { slug: null, campaignName: 'Breathing Space', campaignNote: '', expiryDate: null },
    ])).filter((e) => e.type === 'campaign_account.added');
    expect(events.map((e) => [e.key, e.data])).toEqual([
      ['DEMO_ENERGY:A-1:run-1:campaign_account.added:winter-support-2026', { account_number: 'A00000001', campaign_name: 'winter-support-2026', campaign_slug: 'winter-support-2026' }],
      ['DEMO_ENERGY:A-1:run-1:campaign_account.added:name:Breathing Space', { account_number: 'A00000001', campaign_name: 'Breathing Space' }],
    ]);
  });
});
