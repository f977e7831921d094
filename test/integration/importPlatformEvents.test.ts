/**
 * The events of the platform's Account data (issue 35): an account carrying a business, consents,
 * customer and supply address metadata, deposit agreements, a business contract and a platform
 * campaign, imported through the import steps, writes each event once to the outbox in the
 * create's transaction, with the payload the catalogue types; a retried create adds none.
 */
import { upsertReferenceData } from '../../account/referenceDataStore';
import { insertAccount, newAccountNumber } from '../../db/stores/accountStore';
import { importWorkflowId } from '../../imports/workflowId';
import type { TestDatabase } from '../support/db';
import { uniqueAccount } from '../support/fixtures';
import { StepActivities, StepsDatabase, stepActivities, stepsDatabase, storeRun } from '../support/importRuns';

const NOW = new Date('2026-11-21T10:15:02.118Z');
const PREFIX = 'platev';

/** The example account (test/support/fixtures.ts) with the platform's data the catalogue has an event for. */
function withPlatformData(ext: string): Record<string, unknown> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const a = uniqueAccount(ext) as any;
  a.business = { company_name: 'Bloggs Bakery Ltd', business_type: 'LTD', company_number: '01234567' };
  // An offset is read back as UTC: the event carries the instant, whichever path built it.
  a.consents = [{ type: 'MARKETING_EMAIL', value: 'ACCEPTED', signed_at: '2025-03-01T10:00:00+01:00', description: 'Web sign-up' }];
  a.customers[0].consents = [{ type: 'SMART_DATA_SHARING', value: 'REJECTED' }];
  a.customers[1].metadata = [
    { key: 'crm_segment', value: 'gold' },
    { key: 'contact_preferences', value: { channel: 'sms', quiet_hours: [21, 8] } },
  ];
  a.supply_addresses[0].metadata = [{ key: 'access_notes', value: 'Key with the neighbour at 14' }];
  a.deposit_agreements = [
    { deposit_amount: '150.00', reason: 'Poor credit history', accepted_at: '2025-01-10T12:00:00Z', fulfilled_at: '2025-02-10T12:00:00Z', last_interest_date: '2025-06-30' },
    { deposit_amount: '80.005', reason: 'Change of tenancy', accepted_at: '2025-04-01T08:30:00Z' },
    { deposit_amount: '40', reason: 'Not yet accepted' },
  ];
  a.supply_addresses[0].meter_points[0].agreements[0].business_contract_identifier = 'BC-2025-0042';
  // Named by the platform's campaign_name (not both name and slug: campaign_name_and_slug_provided).
  a.account_campaigns = [{ campaign_name: 'AMR', expiry_date: '2027-03-31', start_date: '2026-11-01', campaign_note: 'From the CRM' }];
  return a;
}

describe('the events of the platform data of an imported account', () => {
  let s: StepsDatabase;
  let t: TestDatabase;
  let acts: StepActivities;
  let n = 0;

  beforeAll(async () => {
    s = await stepsDatabase();
    t = s.t;
    // The platform's campaign `amr` configured (campaign slugs are operators' reference data).
    await upsertReferenceData(t.db, [{ kind: 'campaign', code: 'amr', description: 'AMR' }]);
    await s.cache.refresh();
    acts = stepActivities(s, PREFIX, { now: () => NOW });
  });
  afterAll(() => s.drop());

  const outboxOf = async (ext: string) =>
    (await t.db('outbox').where({ ordering_key: importWorkflowId('DEMO_ENERGY', ext) }).orderBy('seq')) as {
      event_id: string;
      event_type: string;
      subject: string;
      envelope: { data: Record<string, unknown> };
    }[];
  const dataOf = (rows: Awaited<ReturnType<typeof outboxOf>>, type: string) => rows.filter((r) => r.event_type === type).map((r) => r.envelope.data);

  /** The rows of the account the payloads name, by the account's number. */
  async function idsOf(accountNumber: string) {
    const account = await t.db('accounts').where({ number: accountNumber }).first();
    const rows = (table: string) => t.db(table).where({ account_id: account.id }).orderBy('id');
    const [business, consents, userConsents, users, userMetadata, properties, deposits, agreements] = await Promise.all(
      ['account_business', 'consents', 'account_user_consents', 'account_users', 'account_user_metadata', 'properties', 'deposit_agreements', 'agreements'].map(rows),
    );
    const id = (r: { id: string }) => Number(r.id);
    return {
      business: business!.map(id),
      consents: consents!.map(id),
      userConsents: userConsents!.map(id),
      users: users!.map((u: { id: string; user_number: string }) => ({ id: id(u), number: u.user_number })),
      userMetadata: userMetadata!.map(id),
      properties: properties!.map(id),
      deposits: deposits!.map(id),
      agreements: agreements!.map(id),
    };
  }

  async function imported(mutate: (a: Record<string, unknown>) => void = () => undefined) {
    const ext = `PLATEV-${++n}`;
    const payload = withPlatformData(ext);
    mutate(payload);
    const ref = await storeRun(t.db, ext, { payload });
    // The validation too: the account is one a supplier can send.
    expect(await acts.beginImport(ref)).toEqual({ outcome: 'ok' });
    return { ref, ext };
  }

  it('writes each event once, in the create, with the payload of the catalogue; a retried create writes none again', async () => {
    const { ref, ext } = await imported();
    const { accountNumber } = await acts.createAccount(ref);
    const rows = await outboxOf(ext);
    const ids = await idsOf(accountNumber);

    expect(dataOf(rows, 'business.created')).toEqual([{ id: ids.business[0] }]);
    expect(dataOf(rows, 'consents.consent.created')).toEqual([
      {
        signing_identity: { identity_type: 'account', identity: accountNumber },
        consent: { id: ids.consents[0], consent_type_code: 'MARKETING_EMAIL', value: 'ACCEPTED', signed_at: '2025-03-01T09:00:00Z' },
      },
      {
        signing_identity: { identity_type: 'account_user', identity: ids.users[0]!.number },
        consent: { id: ids.userConsents[0], consent_type_code: 'SMART_DATA_SHARING', value: 'REJECTED', signed_at: NOW.toISOString() },
      },
    ]);
    expect(dataOf(rows, 'account_user_metadata.created')).toEqual([
      { user_id: ids.users[1]!.id, key: 'crm_segment', value: 'gold' },
      { user_id: ids.users[1]!.id, key: 'contact_preferences', value: '{"channel":"sms","quiet_hours":[21,8]}' },
    ]);
    expect(dataOf(rows, 'account_property_effective_period_metadata.created')).toEqual([
      { account_property_effective_period_id: ids.properties[0], key: 'access_notes', value: 'Key with the neighbour at 14' },
    ]);
    const deposit = (i: number, reason: string, amount: number) => ({ deposit_key: `${accountNumber}-D${i}`, reason, amount, account_number: accountNumber, ledger_identifier: `${accountNumber}-L1` });
    expect(dataOf(rows, 'deposit_agreement.accepted')).toEqual([
      { ...deposit(1, 'Poor credit history', 15000), accepted_at: '2025-01-10T12:00:00Z' },
      { ...deposit(2, 'Change of tenancy', 8001), accepted_at: '2025-04-01T08:30:00Z' },
    ]);
    expect(dataOf(rows, 'deposit_agreement.fulfilled')).toEqual([{ ...deposit(1, 'Poor credit history', 15000), fulfilled_at: '2025-02-10T12:00:00Z' }]);
    expect(dataOf(rows, 'agreement.created')).toEqual([
      { agreement_id: ids.agreements[0], account_number: accountNumber, valid_from: '2022-11-01', product_code: 'E-2R-VAR-22-11-01-M', business_contract_identifier: 'BC-2025-0042' },
      { agreement_id: ids.agreements[1], account_number: accountNumber, valid_from: '2022-11-01', product_code: 'G-1R-VAR-22-11-01-M' },
    ]);
    expect(dataOf(rows, 'campaign_account.added')).toEqual([
      { account_number: accountNumber, campaign_name: 'AMR', campaign_account_expiry_date: '2027-03-31' },
    ]);
    expect(rows.find((r) => r.event_type === 'consents.consent.created')!.subject).toBe(`${PREFIX}.consents.consent.created.v1`);
    expect(rows.at(-1)!.event_type).toBe('data_import.import_process.complete');

    // Run again after its commit: the same account, not one event more.
    expect(await acts.createAccount(ref)).toEqual({ accountNumber });
    expect((await outboxOf(ext)).map((r) => r.event_id)).toEqual(rows.map((r) => r.event_id));
  });

  it('writes the same events when the create finds the account already made (from the rows read back)', async () => {
    const { ref, ext } = await imported();
    const payload = (await t.db('import_processes').where({ id: ref.importProcessId }).first()).payload;
    const made = await insertAccount(t.db, { importSupplier: 'DEMO_ENERGY', externalAccountNumber: ext, accountNumber: newAccountNumber(), account: payload });
    expect(await acts.createAccount(ref)).toEqual({ accountNumber: made.accountNumber });
    const rows = await outboxOf(ext);
    const ids = await idsOf(made.accountNumber);
    expect(rows.map((r) => r.event_type).filter((type) => !type.startsWith('data_import.'))).toEqual([
      'account.created',
      'account_user.created',
      'account_user.created',
      'agreement.created',
      'agreement.created',
      'account_metadata.created',
      'campaign_account.added',
      'business.created',
      'consents.consent.created',
      'consents.consent.created',
      'account_user_metadata.created',
      'account_user_metadata.created',
      'account_property_effective_period_metadata.created',
      'deposit_agreement.accepted',
      'deposit_agreement.fulfilled',
      'deposit_agreement.accepted',
      'account_user.psr_records_updated',
    ]);
    expect(dataOf(rows, 'consents.consent.created')[0]).toEqual({
      signing_identity: { identity_type: 'account', identity: made.accountNumber },
      consent: { id: ids.consents[0], consent_type_code: 'MARKETING_EMAIL', value: 'ACCEPTED', signed_at: '2025-03-01T09:00:00Z' },
    });
  });

  it('publishes no deposit event for an account imported without a ledger', async () => {
    const { ref, ext } = await imported((a) => {
      delete a.ledgers;
    });
    await acts.createAccount(ref);
    const types = (await outboxOf(ext)).map((r) => r.event_type);
    expect(types.filter((type) => type.startsWith('deposit_agreement.'))).toEqual([]);
    expect(types).toContain('consents.consent.created');
  });
});
