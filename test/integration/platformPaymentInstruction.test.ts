/**
 * `POST /v1/data-import/payment-instruction/create/` on the real servers (docs/api.md, "Payment
 * instructions"): an instruction for an imported account, stored with it (read back by
 * `GET …/account/`, covered by its digest), one active instruction per account, the platform's
 * CreatePaymentInstructionError for every 400, tenant isolation, and the Account's own
 * `payment_instructions` through a v2 create.
 */
import { clearReadBack } from '../support/readBack';
import { eventually, startStack, Stack } from '../support/stack';
import { importThroughApi } from '../support/imports';
import { uniqueAccount } from '../support/fixtures';
import { documentAjv, responseValidator } from '../support/openapiDocument';
import { accountDigest } from '../../account/canonical';
import { createSupplier } from '../../suppliers/store';

jest.setTimeout(180_000);

const PATH = '/v1/data-import/payment-instruction/create/';
/** A pair that passes VocaLink's modulus check (its published test case 1), and one digit off. */
const GOOD = { sort_code: '089999', bank_account_number: '66374958' };
const BAD_MODULUS = { sort_code: '089999', bank_account_number: '66374959' };

describe('payment instructions on the real servers', () => {
  let s: Stack;
  const ajv = documentAjv();
  const accountNumbers = new Map<string, string>();

  const post = async (body: unknown, headers: Record<string, string> = {}) => {
    const res = await s.request().post(PATH).set(headers).send(body as object);
    const valid = responseValidator(ajv, 'post', PATH, res.status);
    expect({ status: res.status, body: res.body, errors: valid(res.body) ? null : valid.errors }).toEqual({ status: res.status, body: res.body, errors: null });
    return res;
  };
  const instruction = (external: string, extra: Record<string, unknown> = {}) => ({
    import_supplier: 'DEMO_ENERGY',
    external_account_number: external,
    type: 'DIRECT_DEBIT',
    vendor: 'BOTTOMLINE_PTX',
    reference: `MANDATE-${external}`,
    ...extra,
  });
  const readBack = clearReadBack(() => s);
  const digestOf = async (external: string) =>
    ((await s.request().post('/v2/data-import/accounts/digests/').send({ import_supplier: 'DEMO_ENERGY', external_account_numbers: [external] })).body.results[0] as { digest: string }).digest;
  const stored = (external: string) => s.t.db('payment_instructions as p').join('accounts as a', 'a.id', 'p.account_id').where({ 'a.external_account_number': external }).select('p.*');

  beforeAll(async () => {
    s = await startStack({ relay: false });
    await createSupplier(s.t.db, 'OTHER_ENERGY');
    await createSupplier(s.t.db, 'PAUSED_ENERGY', { status: 'Paused' });
    for (const name of ['PI-A', 'PI-B', 'PI-C']) accountNumbers.set(name, (await importThroughApi(s, s.ext(name))).kraken_identifier);
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('stores an instruction with the account: 201 in the platform shape, read back, and the digest follows', async () => {
    const external = s.ext('PI-A');
    const before = await digestOf(external);
    expect(before).toBe(accountDigest(await readBack(external)));
    const body = instruction(external, { ...GOOD, ledger_code: 'MAIN', use_for_scheduled_payments: true, valid_from: '2025-01-01' });
    const res = await post(body);
    expect([res.status, res.body]).toEqual([201, { kraken_account_number: accountNumbers.get('PI-A'), account_number: accountNumbers.get('PI-A'), reference: body.reference }]);
    const account = await readBack(external);
    expect(account.payment_instructions).toEqual([
      { reference: body.reference, type: 'DIRECT_DEBIT', vendor: 'BOTTOMLINE_PTX', ledger_code: 'MAIN', use_for_scheduled_payments: true, valid_from: '2025-01-01', ...GOOD },
    ]);
    // The insert forgot the stored digest; the next read computes it over the instruction too.
    const after = await digestOf(external);
    expect(after).not.toBe(before);
    expect(after).toBe(accountDigest(account));
    expect(await stored(external)).toEqual([expect.objectContaining({ import_supplier: 'DEMO_ENERGY', position: 0 })]);
  });

  it('keeps one active instruction per account: the same again answers 201 as before, another 400 account_has_active_instruction', async () => {
    const external = s.ext('PI-A');
    const same = await post(instruction(external, { ...GOOD, ledger_code: 'MAIN', use_for_scheduled_payments: true, valid_from: '2025-01-01' }));
    expect([same.status, same.body.reference]).toEqual([201, `MANDATE-${external}`]);
    const other = await post(instruction(external, { reference: 'MANDATE-OTHER', vendor: 'STRIPE', type: 'CARD' }));
    expect(other.status).toBe(400);
    expect(other.body).toEqual({
      error_detail: 'Account already has an active instruction.',
      external_account_number: external,
      import_supplier: 'DEMO_ENERGY',
      reference: 'MANDATE-OTHER',
      code: 'account_has_active_instruction',
    });
    expect(await stored(external)).toHaveLength(1);
  });

  it('takes the deprecated instruction_reference as the reference, and exactly one of the two', async () => {
    const external = s.ext('PI-B');
    const both = await post(instruction(external, { instruction_reference: 'OLD-NAME' }));
    const none = await post({ ...instruction(external), reference: undefined });
    for (const res of [both, none]) {
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_error');
      expect(res.body.errors).toEqual([expect.objectContaining({ code: 'mutually_exclusive_field_required', attr: 'reference' })]);
    }
    const res = await post({ ...instruction(external, { type: 'CARD', vendor: 'STRIPE' }), reference: undefined, instruction_reference: 'OLD-NAME' });
    expect([res.status, res.body.reference]).toEqual([201, 'OLD-NAME']);
    expect((await readBack(external)).payment_instructions).toEqual([{ reference: 'OLD-NAME', type: 'CARD', vendor: 'STRIPE' }]);
  });

  it.each([
    ['a sort code of 5 digits', { sort_code: '08999', bank_account_number: '66374958' }, [['invalid_sort_code', 'sort_code']]],
    ['a hyphenated sort code and a short account number', { sort_code: '08-99-99', bank_account_number: '6637495' }, [['invalid_sort_code', 'sort_code'], ['invalid_bank_account_number', 'bank_account_number']]],
    ['a pair failing the modulus check', BAD_MODULUS, [['bank_details_failed_modulus_check', 'bank_account_number']]],
    ['a sort code alone', { sort_code: '089999' }, [['bank_details_incomplete', 'bank_account_number']]],
    ['bank details with a card', { ...GOOD, type: 'CARD' }, [['bank_details_not_direct_debit', 'sort_code']]],
  ])('refuses %s with its code, storing nothing', async (_what, extra, issues) => {
    const external = s.ext('PI-C');
    const res = await post(instruction(external, extra));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_error');
    expect(res.body.errors.map((e: { code: string; attr: string }) => [e.code, e.attr])).toEqual(issues);
    expect(await stored(external)).toEqual([]);
  });

  it('answers an unknown account, a staged one, a paused supplier and wrong types in the platform shape', async () => {
    const unknown = await post(instruction(s.ext('PI-NONE')));
    expect([unknown.status, unknown.body.code, unknown.body.external_account_number]).toEqual([400, 'import_process_does_not_exist', s.ext('PI-NONE')]);
    const staged = s.ext('PI-STAGED');
    expect((await s.request().post('/v1/data-import/account-import-process/create-or-update/').send(uniqueAccount(staged))).status).toBe(201);
    const notYet = await post(instruction(staged));
    expect([notYet.status, notYet.body.code]).toEqual([400, 'account_not_found']);
    const paused = await post(instruction(staged, { import_supplier: 'PAUSED_ENERGY' }), await s.authHeader('PAUSED_ENERGY'));
    expect([paused.status, paused.body.code]).toEqual([400, 'import_supplier_migration_not_ongoing']);
    const wrong = await post({ import_supplier: 1, external_account_number: [], type: 'CHEQUE', vendor: null, reference: 'x'.repeat(129), surprise: true });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ code: 'validation_error', import_supplier: '', external_account_number: '', reference: '' });
    expect(wrong.body.errors.map((e: { code: string; attr: string }) => `${e.attr}:${e.code}`).sort()).toEqual(
      ['external_account_number:invalid', 'import_supplier:invalid', 'reference:max_length', 'surprise:unknown_field', 'type:invalid_choice', 'vendor:invalid_choice', 'vendor:null'].sort(),
    );
    const malformed = await s.request().post(PATH).set('Content-Type', 'application/json').send('{"import_supplier": ');
    expect([malformed.status, malformed.body.code, malformed.body.error_detail, malformed.body.reference]).toEqual([400, 'parse_error', expect.any(String), '']);
  });

  it("answers another organisation's token exactly as an unknown account, and stores nothing", async () => {
    const external = s.ext('PI-C');
    const foreign = await post(instruction(external), await s.authHeader('OTHER_ENERGY'));
    const unknown = await post(instruction(external, { import_supplier: 'NO_SUCH_ENERGY' }), await s.authHeader('NO_SUCH_ENERGY'));
    expect([foreign.status, foreign.body.code]).toEqual([400, 'import_process_does_not_exist']);
    expect([unknown.status, unknown.body.code]).toEqual([400, 'import_process_does_not_exist']);
    expect(foreign.body.error_detail).toBe(unknown.body.error_detail);
    expect(await stored(external)).toEqual([]);
  });

  it("imports an Account's own payment instruction (v2 create), read back and digested; a second one by the operation is refused", async () => {
    const external = s.ext('PI-ACCOUNT');
    const payment_instructions = [{ reference: 'ACC-MANDATE', type: 'DIRECT_DEBIT', vendor: 'BOTTOMLINE_GLOBAL_PAYMENTS_HUB', customer_reference: 'CUST-1', instruction_identifier: 'PI-1', ...GOOD }];
    const payment_preferences = [
      { type: 'ACTIVE_NEW', ledger_identifier: 'MAIN', instruction_reference_params: { instruction_identifier: 'PI-1' } },
      { type: 'ACTIVE_EXISTING', ledger_identifier: 'SECOND', instruction_reference_params: { vendor_name: 'STRIPE', vendor_reference: 'seti_1' } },
      { type: 'PASSIVE', ledger_identifier: 'THIRD' },
    ];
    const account = { ...uniqueAccount(external), payment_instructions, payment_preferences, dd_reference: 'ACC-MANDATE' };
    expect((await s.request().post('/v2/data-import/accounts/').send(account)).status).toBe(201);
    await eventually(async () => ((await s.request().get(`/v2/data-import/accounts/DEMO_ENERGY/${external}/`)).body.status === 'PROCESSED' ? true : undefined), 60_000);
    const back = await readBack(external);
    expect([back.payment_instructions, back.payment_preferences, back.dd_reference]).toEqual([payment_instructions, payment_preferences, 'ACC-MANDATE']);
    expect(await digestOf(external)).toBe(accountDigest(account));
    const second = await post(instruction(external));
    expect([second.status, second.body.code]).toEqual([400, 'account_has_active_instruction']);
    // The Account's list is the platform's: several instructions, each with a ledger code or none.
    const two = await s.request().post('/v2/data-import/accounts/validate/').send({ ...uniqueAccount(s.ext('PI-TWO')), payment_instructions: [...payment_instructions, { ...payment_instructions[0], reference: 'B', instruction_identifier: 'PI-2' }] });
    expect(two.status).toBe(200);
    const mixed = await s.request().post('/v2/data-import/accounts/validate/').send({ ...uniqueAccount(s.ext('PI-TWO')), payment_instructions: [...payment_instructions, { ...payment_instructions[0], reference: 'B', instruction_identifier: 'PI-2', ledger_code: 'MAIN' }] });
    expect(mixed.body.errors).toEqual([expect.objectContaining({ code: 'payment_instructions_ledger_code_uniformity_failed', attr: 'payment_instructions' })]);
    const modulus = await s.request().post('/v2/data-import/accounts/validate/').send({ ...uniqueAccount(s.ext('PI-MOD')), payment_instructions: [{ ...payment_instructions[0], ...BAD_MODULUS }] });
    expect(modulus.body.errors).toEqual([expect.objectContaining({ code: 'bank_details_failed_modulus_check', attr: 'payment_instructions.0.bank_account_number' })]);
  });

  it("holds the Account's payment preferences to the platform's types: each type its own params, identifiers found, one per ledger", async () => {
    const res = await s.request().post('/v2/data-import/accounts/validate/').send({
      ...uniqueAccount(s.ext('PI-PREFS')),
      payment_instructions: [{ reference: 'M', type: 'CARD', vendor: 'STRIPE', instruction_identifier: 'PI-1' }],
      payment_preferences: [
        { type: 'ACTIVE_NEW', ledger_identifier: 'A', instruction_reference_params: { instruction_identifier: 'PI-9' } },
        { type: 'ACTIVE_EXISTING', ledger_identifier: 'B', instruction_reference_params: { vendor_name: 'STRIPE', instruction_identifier: 'PI-1' } },
        { type: 'PASSIVE', ledger_identifier: 'C', instruction_reference_params: {} },
        { type: 'ACTIVE_NEW', ledger_identifier: 'A', instruction_reference_params: { instruction_identifier: 'PI-1' } },
        { type: 'SOMETIMES', ledger_identifier: 'D' },
      ],
      dd_reference: '',
    });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { code: string; attr: string }) => `${e.attr}:${e.code}`).sort()).toEqual(
      [
        'dd_reference:blank',
        'payment_preferences.4.type:invalid_choice',
        'payment_preferences.0.instruction_reference_params.instruction_identifier:active_new_payment_preference_invalid_instruction_identifier',
        'payment_preferences.1.instruction_reference_params.vendor_reference:payment_preference_params_required',
        'payment_preferences.1.instruction_reference_params.instruction_identifier:payment_preference_params_not_allowed',
        'payment_preferences.2.instruction_reference_params:payment_preference_params_not_allowed',
        'payment_preferences.3.ledger_identifier:duplicate_payment_preference_ledger',
      ].sort(),
    );
  });
});
