/**
 * Issue 47 item 5: bank details masked on read-back, with a digest that still covers them, unless
 * the caller asks (`?reveal=bank_details`) and its key may (`api-keys permit --reveal-bank-details`),
 * on the real servers. A key given the permission sees them in clear within the grant cache (1 s).
 */
import { eventually, startStack, Stack } from '../support/stack';
import { uniqueAccount } from '../support/fixtures';
import { accountDigest, canonicalAccount } from '../../account/canonical';
import { maskBankDetails } from '../../account/bankDetails';
import { setKeyRevealsBankDetails } from '../../auth/store';
import { diffAccounts } from '../../cli/reconcile';

jest.setTimeout(120_000);

describe('bank details on read-back', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ relay: false });
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('masks them unless revealed by a key that may, and the digest covers the clear values', async () => {
    const external = s.ext('BANK');
    const account = uniqueAccount(external) as Record<string, unknown>;
    account.payment_instructions = [
      { reference: 'MANDATE-1', type: 'DIRECT_DEBIT', vendor: 'BOTTOMLINE_PTX', ledger_code: 'MAIN', use_for_scheduled_payments: false, valid_from: '2026-01-01', customer_reference: '', instruction_identifier: 'PI-1', sort_code: '089999', bank_account_number: '66374958' },
    ];
    const created = await s.request().post('/v2/data-import/accounts/').send(account);
    expect(created.status).toBe(201);
    await eventually(async () => ((await s.request().get(`/v2/data-import/accounts/DEMO_ENERGY/${external}/`)).body.status === 'PROCESSED' ? true : undefined), 90_000);

    const path = `/v2/data-import/accounts/DEMO_ENERGY/${external}/account/`;
    const { keyId, header } = await s.authKey('DEMO_ENERGY');
    const get = (query: string) => s.request().get(`${path}${query}`).set(header);

    const masked = await get('');
    expect(masked.status).toBe(200);
    expect(masked.body.payment_instructions[0]).toMatchObject({ sort_code: '****99', bank_account_number: '****4958' });
    expect(JSON.stringify(masked.body)).not.toContain('66374958');
    expect(masked.body).toEqual(maskBankDetails(canonicalAccount(account)));
    // The digest is the clear account's: a book's digest still matches.
    const digests = await s.request().post('/v2/data-import/accounts/digests/').set(header).send({ import_supplier: 'DEMO_ENERGY', external_account_numbers: [external] });
    expect(digests.body.results[0].digest).toBe(accountDigest(account));
    // Reconcile's diff of the book against the masked read-back finds nothing.
    expect(diffAccounts(account, masked.body).count).toBe(0);

    const refused = await get('?reveal=bank_details');
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 403, code: 'permission_denied' });
    for (const [q, issue] of [
      ['?reveal=everything', 'invalid_choice@reveal'],
      ['?reveal=bank_details&reveal=bank_details', 'invalid_choice@reveal'],
      ['?reveal=bank_details&x=1', 'unknown_field@x'],
      ['?x=1', 'unknown_field@x'],
    ]) {
      const bad = await get(q!);
      const issues = (bad.body.errors as { code: string; attr: string }[]).map((e) => `${e.code}@${e.attr}`);
      expect({ q, status: bad.status, code: bad.body.code, issues }).toEqual({ q, status: 400, code: 'validation_error', issues: [issue] });
    }

    expect(await setKeyRevealsBankDetails(s.t.db, keyId, true)).toBe(true);
    const clear = await eventually(async () => {
      const r = await get('?reveal=bank_details');
      return r.status === 200 ? r : undefined;
    }, 10_000, 200);
    expect(clear.body.payment_instructions[0]).toMatchObject({ sort_code: '089999', bank_account_number: '66374958' });
    expect(clear.body).toEqual(canonicalAccount(account));
    // Without asking, even a key that may gets them masked.
    expect((await get('')).body.payment_instructions[0].bank_account_number).toBe('****4958');
  });
});
