import request from 'supertest';
import { startStack, Stack } from '../support/stack';
import { importThroughApi } from '../support/imports';
import { createSupplier, updateSupplier } from '../../suppliers/store';
import { uuidFromKey } from '../../lib/ids';
import { documentAjv, responseValidator } from '../support/openapiDocument';
import { accountDigest } from '../../account/canonical';
import { londonToday, nextDay } from '../../account/dates';

// Real servers and a workflow bundle: far beyond jest's default 5 s.
jest.setTimeout(120_000);


describe('post-import top-ups on the real servers', () => {
  let s: Stack;
  let ext: (name: string) => string;
  const accountNumbers = new Map<string, string>();

  async function importAccount(external: string, envelope?: { is_dry_run: boolean }): Promise<void> {
    accountNumbers.set(external, (await importThroughApi(s, external, envelope)).kraken_identifier);
  }


  const ajv = documentAjv();
  /** Each 201 is checked against the OpenAPI document's schema of it, as a generated client would. */
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await s.request().post(`/v1/data-import/${path}`).set(headers).send(body as object);
    if (res.status === 201) {
      const valid = responseValidator(ajv, 'post', `/v1/data-import/${path.split('?')[0]}`, 201);
      expect({ path, body: res.body, valid: valid(res.body), errors: valid.errors ?? null }).toEqual({ path, body: res.body, valid: true, errors: null });
    }
    return res;
  };

  const accountId = async (external: string) => (await s.t.db('accounts').where({ external_account_number: external }).first('id')).id as string;
  const ledgerBalance = async (external: string) =>
    (await s.t.db('ledgers').where({ account_id: await accountId(external) }).first(s.t.db.raw('ledger_balance::text AS b'))).b as string;
  const outboxCount = async () => Number((await s.t.db('outbox').count({ n: '*' }))[0]!.n);

  beforeAll(async () => {
    s = await startStack({ relay: false });
    ext = (name) => `${name}-${s.taskQueue}`;
    await updateSupplier(s.t.db, 'DEMO_ENERGY', { documentRoot: '/srv/documents/demo' });
    await createSupplier(s.t.db, 'OTHER_ENERGY');
    await importAccount(ext('TX'));
    await importAccount(ext('LINES'));
    await importAccount(ext('NOTES'));
    await importAccount(ext('STATEMENTS'));
    await importAccount(ext('DRY'), { is_dry_run: true });
  });
  afterAll(async () => {
    await s?.stop();
  });

  /** The 404 of every top-up for an unknown account, a staged-only one, and a supplier outside the grant. */
  async function expectNotFoundCases(path: string, body: (external: string, supplier?: string) => Record<string, unknown>, imported: string) {
    const unknown = await post(path, body(ext('NOBODY')));
    const stagedOnly = await post(path, body(ext('DRY')));
    const outside = await post(path, body(imported), await s.authHeader('OTHER_ENERGY'));
    const unknownSupplier = await post(path, body(imported, 'NO_SUCH_ENERGY'), await s.authHeader('DEMO_ENERGY', 'NO_SUCH_ENERGY'));
    for (const res of [unknown, stagedOnly, outside, unknownSupplier]) {
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
    expect(outside.body).toEqual(unknownSupplier.body);
  }

  describe('transactions/create', () => {
    const body = (external: string, transactions: unknown[], extra: Record<string, unknown> = {}) => ({
      import_supplier: 'DEMO_ENERGY',
      external_account_number: external,
      transactions,
      ...extra,
    });
    const TXS = [
      { transaction_id: 'TOP-1', transaction_date: '2026-11-10', amount: '10.00', type: 'CHARGE', reason: 'IMPORTED_CHARGE', display_note: 'A charge.' },
      { transaction_id: 'TOP-2', transaction_date: '2026-11-11', amount: 25.5, type: 'PAYMENT', reason: 'ACCOUNT_CHARGE_PAYMENT', payment_type: 'DD_REGULAR_COLLECTION' },
      // Inside the closed statement period (closing 2026-10-31): moved to 2026-11-01 by default.
      { transaction_id: 'TOP-3', transaction_date: '2026-10-15', amount: '2.00', type: 'CREDIT', reason: 'IMPORTED_CREDIT' },
    ];

    it('adds each transaction in one transaction with its ledger event, moves the ledger balance and a closed-period date', async () => {
      const external = ext('TX');
      const before = await outboxCount();
      const res = await post('transactions/create/', body(external, TXS));
      expect(res.status).toBe(201);
      expect(res.body.results.map((r: { status: string }) => r.status)).toEqual(['TRANSACTION_ADDED_TO_ACCOUNT', 'TRANSACTION_ADDED_TO_ACCOUNT', 'TRANSACTION_ADDED_TO_ACCOUNT']);
      expect(res.body.results[2].transaction_data.transaction_date).toBe('2026-11-01');
      expect(res.body.results.every((r: { added_transaction_id: unknown }) => Number.isInteger(r.added_transaction_id))).toBe(true);
      // -45.20 - 10.00 + 25.50 + 2.00
      expect(await ledgerBalance(external)).toBe('-27.70');

      const accountNumber = accountNumbers.get(external)!;
      const events = await s.t.db('outbox').where({ event_type: 'billing.ledger.entry_posted' }).orderBy('seq');
      expect(await outboxCount()).toBe(before + 3);
      expect(events.map((e) => e.event_id)).toEqual(['TOP-1', 'TOP-2', 'TOP-3'].map((id) => uuidFromKey(`post-import:transaction:${accountNumber}:${id}`)));
      expect(events[0].envelope.data).toEqual({
        ledger: { account: { number: accountNumber }, number: `${accountNumber}-L1`, id: expect.any(String) },
        entry: { id: res.body.results[0].added_transaction_id, is_charge: true, is_credit: false, is_payment: false, is_repayment: false, is_reversal: false, is_reversed: false, source_type: 'data_import' },
      });
      // The platform pins a note for the moved transaction.
      const pinned = await s.t.db('post_import_notes').where({ account_id: await accountId(external), external_id: 'transaction-date-moved:TOP-3' });
      expect(pinned).toHaveLength(1);
      expect(pinned[0].is_pinned).toBe(true);
    });

    it('answers TRANSACTION_ALREADY_EXISTS on a retry and changes nothing', async () => {
      const external = ext('TX');
      const before = await outboxCount();
      const res = await post('transactions/create/', body(external, TXS));
      expect(res.status).toBe(201);
      expect(res.body.results.map((r: { status: string }) => r.status)).toEqual(['TRANSACTION_ALREADY_EXISTS', 'TRANSACTION_ALREADY_EXISTS', 'TRANSACTION_ALREADY_EXISTS']);
      expect(await ledgerBalance(external)).toBe('-27.70');
      expect(await outboxCount()).toBe(before);
      expect(await s.t.db('post_import_transactions').where({ account_id: await accountId(external) }).count({ n: '*' })).toEqual([{ n: '3' }]);
    });

    it('adds a transaction once when the same request arrives twice at the same time', async () => {
      const external = ext('TX');
      const before = await ledgerBalance(external);
      const tx = { transaction_id: 'TOP-RACE', transaction_date: '2026-11-13', amount: '7.25', type: 'REPAYMENT' };
      const both = await Promise.all([post('transactions/create/', body(external, [tx])), post('transactions/create/', body(external, [tx]))]);
      expect(both.map((r) => r.body.results[0].status).sort()).toEqual(['TRANSACTION_ADDED_TO_ACCOUNT', 'TRANSACTION_ALREADY_EXISTS']);
      expect(Number(await ledgerBalance(external))).toBeCloseTo(Number(before) - 7.25, 2);
      expect(await s.t.db('outbox').where({ event_id: uuidFromKey(`post-import:transaction:${accountNumbers.get(ext('TX'))}:TOP-RACE`) })).toHaveLength(1);
    });

    it('treats an imported transaction id as already there; unchecked, it is an import error', async () => {
      const external = ext('TX');
      const imported = { transaction_id: 'TX-100045-0301', transaction_date: '2026-11-12', amount: '1.00', type: 'CHARGE' };
      expect((await post('transactions/create/', body(external, [imported]))).body.results[0].status).toBe('TRANSACTION_ALREADY_EXISTS');
      const unchecked = await post('transactions/create/?check_previously_added=false', body(external, [imported]));
      expect(unchecked.body.results[0]).toEqual(expect.objectContaining({ status: 'TRANSACTION_IMPORT_ERROR', error_detail: expect.any(String) }));
      expect(await ledgerBalance(external)).toBe('-34.95');
    });

    it('refuses a closed-period date without force_add_to_current_statement, and writes nothing for it', async () => {
      const external = ext('TX');
      const old = { transaction_id: 'TOP-OLD', transaction_date: '2026-10-20', amount: '5.00', type: 'CHARGE' };
      const res = await post('transactions/create/?force_add_to_current_statement=false', body(external, [old]));
      expect(res.status).toBe(201);
      expect(res.body.results[0].status).toBe('TRANSACTION_IMPORT_ERROR');
      expect(await s.t.db('post_import_transactions').where({ transaction_id: 'TOP-OLD' })).toEqual([]);
    });

    it('runs a dry run to the end and rolls it back: 200 with the statuses, nothing written', async () => {
      const external = ext('TX');
      const before = await outboxCount();
      const res = await post('transactions/create/', body(external, [{ transaction_id: 'TOP-DRY', transaction_date: '2026-11-12', amount: '3.00', type: 'CHARGE' }], { dry_run: true }));
      expect(res.status).toBe(200);
      expect(res.body.results[0].status).toBe('TRANSACTION_ADDED_TO_ACCOUNT');
      expect(await s.t.db('post_import_transactions').where({ transaction_id: 'TOP-DRY' })).toEqual([]);
      expect(await ledgerBalance(external)).toBe('-34.95');
      expect(await outboxCount()).toBe(before);
    });

    describe("the platform's whole transaction: line items and tax items", () => {
      // The platform's EnergyCharge with every field, and a payment as the platform sends one (a number).
      const CHARGE = {
        transaction_id: 'TOP-LINES-1',
        transaction_date: '2026-11-14',
        amount: '52.50',
        type: 'CHARGE',
        reason: 'IMPORTED_CHARGE',
        product_code: 'ELEC-STANDARD',
        supply_point_identifier: '1200023305963',
        billing_document_identifier: 'BILL-2026-11',
        display_note: 'November energy',
        note: 'From the legacy bill run.',
        reference: 'LEGACY-9',
        line_items: [
          {
            start_date: '2026-11-01',
            end_date: '2026-11-14',
            net_amount: '50.00',
            number_of_units: '200.5',
            price_per_unit: '0.2493766',
            rate_band: 'DAY',
            units: ['100.25', '300.75'],
            params: { meter_serial_number: 'S95A12345' },
          },
          { start_date: '2026-11-01', end_date: '2026-11-14', net_amount: '0', number_of_units: '14' },
        ],
        tax_items: [{ tax_type: 'VAT', unit_type: 'PROPORTION', rate: '0.05', value_taxed: '50.00', amount: '2.50', params: {} }],
      };
      const PAYMENT = { transaction_id: 'TOP-LINES-2', transaction_date: '2026-11-15', amount: 12.5, type: 'PAYMENT', payment_type: 'DD_REGULAR_COLLECTION' };
      const account = async (external: string) => {
        const r = await s.request().get(`/v2/data-import/accounts/DEMO_ENERGY/${external}/account/`);
        expect(r.status).toBe(200);
        return r.body as { ledgers: { current_statement_transactions: Record<string, unknown>[]; ledger_balance: string }[] };
      };
      const digest = async (external: string) =>
        (await s.request().post('/v2/data-import/accounts/digests/').send({ import_supplier: 'DEMO_ENERGY', external_account_numbers: [external] })).body.results[0].digest as string;
      const lineItemRows = async (external: string) => Number((await s.t.db('ledger_transaction_line_items').where({ account_id: await accountId(external) }).count({ n: '*' }))[0]!.n);

      it('a dry run of them writes nothing', async () => {
        const external = ext('LINES');
        const res = await post('transactions/create/', body(external, [CHARGE], { dry_run: true }));
        expect(res.status).toBe(200);
        expect(res.body.results[0].status).toBe('TRANSACTION_ADDED_TO_ACCOUNT');
        expect(await lineItemRows(external)).toBe(0);
        expect(await s.t.db('ledger_transactions').where({ account_id: await accountId(external), transaction_id: CHARGE.transaction_id })).toEqual([]);
      });

      it('adds them to the account, which reads them back after its imported ones, and whose digest is that of the account read back', async () => {
        const external = ext('LINES');
        const before = await account(external);
        const digestBefore = await digest(external);
        expect(digestBefore).toBe(accountDigest(before));

        const res = await post('transactions/create/', body(external, [CHARGE, PAYMENT]));
        expect(res.status).toBe(201);
        expect(res.body.results).toEqual([
          { status: 'TRANSACTION_ADDED_TO_ACCOUNT', transaction_data: CHARGE, added_transaction_id: expect.any(Number) },
          { status: 'TRANSACTION_ADDED_TO_ACCOUNT', transaction_data: PAYMENT, added_transaction_id: expect.any(Number) },
        ]);
        expect(await lineItemRows(external)).toBe(2);

        const after = await account(external);
        const imported = before.ledgers[0]!.current_statement_transactions;
        // As sent, but the amount, which an account holds as a decimal string.
        expect(after.ledgers[0]!.current_statement_transactions).toEqual([...imported, CHARGE, { ...PAYMENT, amount: '12.5' }]);
        // Nothing else of the account changed but the balance: -45.20 - 52.50 + 12.50.
        expect({ ...after, ledgers: [{ ...after.ledgers[0], current_statement_transactions: imported, ledger_balance: before.ledgers[0]!.ledger_balance }, ...after.ledgers.slice(1)] }).toEqual(before);
        expect(after.ledgers[0]!.ledger_balance).toBe('-85.20');
        // The insert forgot the stored digest: the bulk digest is the account's as it now reads back.
        const digestAfter = await digest(external);
        expect(digestAfter).toBe(accountDigest(after));
        expect(digestAfter).not.toBe(digestBefore);
      });

      it('answers TRANSACTION_ALREADY_EXISTS on a retry and writes no second line item', async () => {
        const external = ext('LINES');
        const res = await post('transactions/create/', body(external, [CHARGE]));
        expect(res.body.results[0].status).toBe('TRANSACTION_ALREADY_EXISTS');
        expect(await lineItemRows(external)).toBe(2);
      });
    });

    it('answers not_found for an unknown account, a staged-only account and a supplier outside the grant', async () => {
      await expectNotFoundCases('transactions/create/', (e, supplier = 'DEMO_ENERGY') => ({ ...body(e, [TXS[0]]), import_supplier: supplier }), ext('TX'));
    });

    it('answers import_supplier_migration_not_ongoing when the supplier is paused', async () => {
      await updateSupplier(s.t.db, 'DEMO_ENERGY', { status: 'Paused' });
      try {
        const res = await post('transactions/create/', body(ext('TX'), [TXS[0]]));
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('import_supplier_migration_not_ongoing');
      } finally {
        await updateSupplier(s.t.db, 'DEMO_ENERGY', { status: 'Ongoing' });
      }
    });

    it.each<[string, unknown[], string, string]>([
      ['an exponent amount', [{ ...TXS[0], amount: '1e3' }], 'invalid_decimal', 'transactions.0.amount'],
      ['a negative amount', [{ ...TXS[0], amount: '-5.00' }], 'min_value', 'transactions.0.amount'],
      ['three decimal places', [{ ...TXS[0], amount: 1.005 }], 'max_decimal_places', 'transactions.0.amount'],
      ['a missing transaction_id', [{ ...TXS[0], transaction_id: undefined }], 'missing_transaction_id', 'transactions.0.transaction_id'],
      ['a repeated transaction_id', [TXS[0], TXS[0]], 'duplicate_transaction_ids', 'transactions.1.transaction_id'],
      ['an unknown type', [{ ...TXS[0], type: 'GIFT' }], 'invalid_choice', 'transactions.0.type'],
      ['a field neither the platform nor the Account documents', [{ ...TXS[0], colour: 'red' }], 'unknown_field', 'transactions.0.colour'],
      ['a line item without its net amount', [{ ...TXS[0], line_items: [{ start_date: '2026-11-01', end_date: '2026-11-10', number_of_units: '1' }] }], 'required', 'transactions.0.line_items.0.net_amount'],
      ['a line item with three units', [{ ...TXS[0], line_items: [{ start_date: '2026-11-01', end_date: '2026-11-10', net_amount: '1.00', number_of_units: '1', units: ['1', '2', '3'] }] }], 'line_item_units_must_be_two_values', 'transactions.0.line_items.0.units'],
      ['a date after today', [{ ...TXS[0], transaction_date: nextDay(londonToday(new Date())) }], 'transaction_in_future', 'transactions.0.transaction_date'],
      ['a bad date', [{ ...TXS[0], transaction_date: '2026-02-30' }], 'invalid_date', 'transactions.0.transaction_date'],
      ['no transactions', [], 'invalid', 'transactions'],
    ])('answers validation_error for %s', async (_name, transactions, code, attr) => {
      const res = await post('transactions/create/', body(ext('TX'), transactions));
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_error');
      expect(res.body.errors).toEqual([expect.objectContaining({ code, attr })]);
    });

    it('answers validation_error for a bad query flag, parse_error for a body that is no object', async () => {
      const flag = await post('transactions/create/?check_previously_added=maybe', body(ext('TX'), [TXS[0]]));
      expect(flag.status).toBe(400);
      expect(flag.body.errors).toEqual([expect.objectContaining({ code: 'invalid', attr: 'check_previously_added' })]);
      const others = await post('transactions/create/?force_add_to_current_statement=true&force_add_to_current_statement=false&dry=1', body(ext('TX'), [TXS[0]]));
      expect([others.status, others.body.code]).toEqual([400, 'validation_error']);
      expect(others.body.errors.map((e: { code: string; attr: string }) => `${e.code}@${e.attr}`).sort()).toEqual(['invalid@force_add_to_current_statement', 'unknown_field@dry']);
      const array = await post('transactions/create/', [1]);
      expect(array.status).toBe(400);
      expect(array.body.code).toBe('parse_error');
      const malformed = await s.request().post('/v1/data-import/transactions/create/').set('content-type', 'application/json').send('{"import_supplier":');
      expect(malformed.body.code).toBe('parse_error');
    });
  });

  describe('notes/create', () => {
    const body = (external: string, notes: unknown[]) => ({ import_supplier: 'DEMO_ENERGY', external_account_number: external, notes });
    const NOTES = [
      { body: 'Some important pinned note.', is_pinned: true, unpin_at: '2027-06-01T12:00:00Z', external_id: 'N-1' },
      { created_at: '2026-11-20T12:00:00Z', body: 'A note with an attachment.', document_paths: [{ document_path: 'notes/a.pdf' }] },
    ];

    it('creates the notes, then answers NOTE_ALREADY_EXISTS on a retry, and for a note the import brought', async () => {
      const external = ext('NOTES');
      const first = await post('notes/create/', body(external, NOTES));
      expect(first.status).toBe(201);
      expect(first.body).toEqual(NOTES.map((n) => ({ ...n, status: 'NOTE_CREATION_SUCCESS' })));
      const retry = await post('notes/create/', body(external, NOTES));
      expect(retry.body.map((n: { status: string }) => n.status)).toEqual(['NOTE_ALREADY_EXISTS', 'NOTE_ALREADY_EXISTS']);
      const importedNote = { created_at: '2026-06-14T09:31:00Z', body: 'Customer asked for paper bills for the next two quarters.' };
      expect((await post('notes/create/', body(external, [importedNote]))).body[0].status).toBe('NOTE_ALREADY_EXISTS');
      // Two notes of documents only are two notes; each is there once after a retry.
      const docsOnly = [{ document_paths: [{ document_path: 'notes/b.pdf' }] }, { document_paths: [{ document_path: 'notes/c.pdf' }] }];
      expect((await post('notes/create/', body(external, docsOnly))).body.map((n: { status: string }) => n.status)).toEqual(['NOTE_CREATION_SUCCESS', 'NOTE_CREATION_SUCCESS']);
      expect((await post('notes/create/', body(external, docsOnly))).body.map((n: { status: string }) => n.status)).toEqual(['NOTE_ALREADY_EXISTS', 'NOTE_ALREADY_EXISTS']);
      const rows = await s.t.db('post_import_notes').where({ account_id: await accountId(external) });
      expect(rows).toHaveLength(4);
      expect(rows.find((r) => r.external_id === 'N-1').is_pinned).toBe(true);
    });

    it('answers not_found for an unknown account, a staged-only account and a supplier outside the grant', async () => {
      await expectNotFoundCases('notes/create/', (e, supplier = 'DEMO_ENERGY') => ({ ...body(e, [NOTES[0]]), import_supplier: supplier }), ext('NOTES'));
    });

    it.each<[string, unknown, string, string]>([
      ['a document path outside the document root', { body: 'x', document_paths: [{ document_path: '../../etc/passwd' }] }, 'invalid_document_path', 'notes.0.document_paths.0.document_path'],
      ['neither body nor document paths', { created_at: '2026-11-20T12:00:00Z' }, 'note_body_or_document_path_not_found', 'notes.0.body'],
      ['unpin_at before created_at', { body: 'x', created_at: '2026-11-20T12:00:00Z', unpin_at: '2026-11-19T12:00:00Z' }, 'note_unpin_at_earlier_than_creation_date', 'notes.0.unpin_at'],
      ['a datetime with a space for its T', { body: 'x', created_at: '2026-11-20 12:00:00' }, 'invalid_datetime', 'notes.0.created_at'],
    ])('answers validation_error for %s', async (_name, note, code, attr) => {
      const res = await post('notes/create/', body(ext('NOTES'), [note]));
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_error');
      expect(res.body.errors).toEqual([expect.objectContaining({ code, attr })]);
    });
  });

  describe('historical-statements/create', () => {
    const body = (external: string, statements: unknown[]) => ({ import_supplier: 'DEMO_ENERGY', external_account_number: external, statements });
    const STATEMENT = { bill_period_from_date: '2026-09-01', bill_period_to_date: '2026-09-30', statement_id: 'HS-1', issued_date: '2026-10-02', number: '1', gross_amount: 10000, statement_path: 'statements/hs-1.pdf' };

    it('creates a statement, answers STATEMENT_ALREADY_EXISTS on a retry, and an error for the same id with other content', async () => {
      const external = ext('STATEMENTS');
      const first = await post('historical-statements/create/', body(external, [STATEMENT]));
      expect(first.status).toBe(201);
      expect(first.body).toEqual({ import_supplier: 'DEMO_ENERGY', external_account_number: external, statements: [{ ...STATEMENT, status: 'STATEMENT_CREATION_SUCCESS' }] });
      expect((await post('historical-statements/create/', body(external, [STATEMENT]))).body.statements[0].status).toBe('STATEMENT_ALREADY_EXISTS');
      const changed = await post('historical-statements/create/', body(external, [{ ...STATEMENT, gross_amount: 1 }]));
      expect(changed.body.statements[0]).toEqual(expect.objectContaining({ status: 'STATEMENT_IMPORT_ERROR', error_code: 'historical_statement_already_exists' }));
      const imported = await post('historical-statements/create/', body(external, [{ ...STATEMENT, statement_id: 'ST-100045-202610' }]));
      expect(imported.body.statements[0].error_code).toBe('historical_statement_already_exists');
      expect(await s.t.db('post_import_statements').where({ account_id: await accountId(external) }).count({ n: '*' })).toEqual([{ n: '1' }]);
    });

    it('answers not_found for an unknown account, a staged-only account and a supplier outside the grant', async () => {
      await expectNotFoundCases('historical-statements/create/', (e, supplier = 'DEMO_ENERGY') => ({ ...body(e, [STATEMENT]), import_supplier: supplier }), ext('STATEMENTS'));
    });

    it.each<[string, unknown, string, string]>([
      ['a statement path outside the document root', { ...STATEMENT, statement_path: '/a/../../b.pdf' }, 'invalid_document_path', 'statements.0.statement_path'],
      ['an end before the start', { ...STATEMENT, bill_period_to_date: '2026-08-01' }, 'start_date_later_than_end_date', 'statements.0.bill_period_to_date'],
      ['a missing statement_id', { ...STATEMENT, statement_id: undefined }, 'required', 'statements.0.statement_id'],
      ['a gross amount with decimals', { ...STATEMENT, gross_amount: 10.5 }, 'invalid', 'statements.0.gross_amount'],
    ])('answers validation_error for %s', async (_name, statement, code, attr) => {
      const res = await post('historical-statements/create/', body(ext('STATEMENTS'), [statement]));
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_error');
      expect(res.body.errors).toEqual([expect.objectContaining({ code, attr })]);
    });
  });
});
