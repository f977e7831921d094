import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { accountDigest } from '../../../account/canonical';
import { accountTotals, addDecimal, addTotals, classify, diffAccounts, diffCanonical, emptyTotals, hiddenBankDifferences, isPersonalPath, MASK, maskValue, nextLink, totalsEqual, type DigestRecord } from '../../../cli/reconcile';
import { formatSummary } from '../../../cli/reconcile/report';
import { maskBankDetails } from '../../../account/bankDetails';
import { readBatches, ReconcileState, ReconcileStateError, type BatchLine, type StateHeader } from '../../../cli/reconcile/state';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function example(): Json {
  return JSON.parse(fs.readFileSync(path.join(__dirname, '../../../examples/account-dual-fuel.json'), 'utf8'));
}

const record = (status: string, digest: string | null = null, code?: string): DigestRecord => ({
  status,
  kraken_identifier: status === 'PROCESSED' ? 'A-00000001' : null,
  latest_error: code ? { code } : null,
  digest,
});

describe('reconcile: the class of an account', () => {
  const d = accountDigest(example());

  it.each<[string, DigestRecord | undefined, { class: string; errorCode: string | null }]>([
    ['no import process', undefined, { class: 'missing', errorCode: null }],
    ['a dry run only', record('DRY_RUN_SUCCEEDED'), { class: 'missing', errorCode: null }],
    ['staged only (v1 create-or-update, never processed)', record('STAGED'), { class: 'missing', errorCode: null }],
    ['PENDING', record('PENDING'), { class: 'not_final', errorCode: null }],
    ['IN_PROGRESS', record('IN_PROGRESS'), { class: 'not_final', errorCode: null }],
    ['ERRORED with its code', record('ERRORED', null, 'import_process_failed_validation'), { class: 'failed', errorCode: 'import_process_failed_validation' }],
    ['CANCELLED without a code', record('CANCELLED'), { class: 'failed', errorCode: 'cancelled' }],
    ['DRY_RUN_ERRORED', record('DRY_RUN_ERRORED', null, 'x'), { class: 'failed', errorCode: 'x' }],
    ['PROCESSED without an account', record('PROCESSED', null), { class: 'failed', errorCode: 'account_not_found' }],
    ['PROCESSED, same digest', record('PROCESSED', d), { class: 'matched', errorCode: null }],
    ['PROCESSED, another digest', record('PROCESSED', `sha256:${'0'.repeat(64)}`), { class: 'mismatched', errorCode: null }],
  ])('%s', (_name, rec, expected) => {
    expect(classify(rec, d)).toEqual({ ...expected, status: rec?.status ?? null });
  });
});

describe('reconcile: the paths that differ, personal values masked', () => {
  it('finds nothing between an account and its normalised, reordered stored form', () => {
    const book = example();
    const stored = Object.fromEntries(Object.entries(example()).reverse());
    stored.customers[0].mobile = '+447911123456';
    stored.notes = stored.notes ?? [];
    expect(diffAccounts(book, stored)).toEqual({ paths: [], count: 0 });
  });

  it('reports each differing leaf at its dot path, the values of personal fields masked', () => {
    const book = example();
    const stored = example();
    stored.ledgers[0].ledger_balance = '-1.00';
    stored.customers[0].given_name = 'Someone Else';
    stored.supply_addresses[0].meter_points[0].meters[0].meter_serial_number = 'X-1';
    const diff = diffAccounts(book, stored);
    expect(diff.count).toBe(3);
    expect(diff.paths).toEqual([
      { path: 'customers.0.given_name', source: MASK, platform: MASK },
      { path: 'ledgers.0.ledger_balance', source: book.ledgers[0].ledger_balance, platform: '-1.00' },
      { path: 'supply_addresses.0.meter_points.0.meters.0.meter_serial_number', source: book.supply_addresses[0].meter_points[0].meters[0].meter_serial_number, platform: 'X-1' },
    ]);
  });

  it('reports a value present on one side only once, at its path (null for the absent side)', () => {
    const diff = diffCanonical({ a: { b: 1 }, list: [1, 2] }, { list: [1] });
    expect(diff.paths).toEqual([
      { path: 'a', source: { b: 1 }, platform: null },
      { path: 'list.1', source: 2, platform: null },
    ]);
  });

  it('stops listing at the limit, and still counts every path', () => {
    const diff = diffCanonical({ a: 1, b: 2, c: 3 }, { a: 0, b: 0, c: 0 }, 2);
    expect(diff.paths.map((p) => p.path)).toEqual(['a', 'b']);
    expect(diff.count).toBe(3);
  });

  it.each([
    ['customers.0.email', true],
    ['customers.1', true],
    ['customers', true],
    ['customers.0.psr.0.effective_from', true],
    ['supply_addresses.0.property_administrators.0.title', true],
    ['supply_addresses.0.supply_postcode', true],
    ['supply_addresses.1', true],
    ['billing_address3', true],
    ['notes.2.body', true],
    ['metadata.0.value.anything', true],
    ['metadata.0.key', false],
    ['customers.0.customer_preferences.opted_into_sms', false],
    ['supply_addresses.0.meter_points.0.identifier', false],
    ['ledgers.0.ledger_balance', false],
    ['transfer_balance', false],
  ])('%s personal: %s', (p, personal) => {
    expect(isPersonalPath(p)).toBe(personal);
    expect(maskValue(p, 'v')).toBe(personal ? MASK : 'v');
    expect(maskValue(p, undefined)).toBeNull();
  });
});

describe('reconcile: a book with bank details against the read-back (masked unless revealed)', () => {
  const withBank = (sortCode: string, accountNumber: string): Json => {
    const a = example();
    a.payment_instructions = [{ reference: 'MANDATE-1', type: 'DIRECT_DEBIT', vendor: 'BOTTOMLINE_PTX', sort_code: sortCode, bank_account_number: accountNumber }];
    return a;
  };

  it('matches the masked read-back of the same account', () => {
    const book = withBank('089999', '66374958');
    expect(diffAccounts(book, maskBankDetails(book))).toEqual({ paths: [], count: 0 });
    expect(diffAccounts(book, book, 50, { revealed: true })).toEqual({ paths: [], count: 0 });
  });

  it('masked: names a difference in the visible characters, masked on both sides', () => {
    const diff = diffAccounts(withBank('089999', '66374958'), maskBankDetails(withBank('089998', '66374958')));
    expect(diff).toEqual({ paths: [{ path: 'payment_instructions.0.sort_code', source: '****99', platform: '****98' }], count: 1 });
  });

  it('masked: a difference within the masked characters is not seen by the diff; hiddenBankDifferences lists every bank detail, marked', () => {
    const book = withBank('089999', '66374958');
    const stored = maskBankDetails(withBank('189999', '66374958'));
    expect(diffAccounts(book, stored).count).toBe(0);
    expect(hiddenBankDifferences(book, stored)).toEqual({
      paths: [
        { path: 'payment_instructions.0.sort_code', source: '****99', platform: '****99', within_mask: true },
        { path: 'payment_instructions.0.bank_account_number', source: '****4958', platform: '****4958', within_mask: true },
      ],
      count: 2,
    });
    expect(hiddenBankDifferences(book, stored, 1).paths).toHaveLength(1);
    expect(hiddenBankDifferences(example(), example())).toEqual({ paths: [], count: 0 });
  });

  it('revealed: compared in clear (the exact path of a masked character), reported masked', () => {
    const diff = diffAccounts(withBank('089999', '66374958'), withBank('189999', '12374958'), 50, { revealed: true });
    expect(diff).toEqual({
      paths: [
        { path: 'payment_instructions.0.bank_account_number', source: '****4958', platform: '****4958' },
        { path: 'payment_instructions.0.sort_code', source: '****99', platform: '****99' },
      ],
      count: 2,
    });
    expect(JSON.stringify(diff)).not.toMatch(/089999|189999|66374958|12374958/);
  });

  it('revealed: an instruction on one side only is reported whole, its bank details masked', () => {
    const book = withBank('089999', '66374958');
    const stored = example();
    delete stored.payment_instructions;
    const diff = diffAccounts(book, stored, 50, { revealed: true });
    expect(diff.count).toBe(1);
    expect(diff.paths[0]).toMatchObject({ path: 'payment_instructions', platform: null });
    expect(JSON.stringify(diff)).not.toMatch(/089999|66374958/);
    expect(JSON.stringify(diff)).toContain('****4958');
  });

  it.each([
    ['payment_instructions.0.sort_code', '089999', '****99'],
    ['payment_instructions.3.bank_account_number', '66374958', '****4958'],
    ['payment_instructions.0.reference', 'MANDATE-1', 'MANDATE-1'],
    ['sort_code', '089999', '089999'],
  ])('maskValue(%s)', (p, v, shown) => {
    expect(maskValue(p, v)).toBe(shown);
  });
});

describe('reconcile: totals', () => {
  it('adds decimals exactly', () => {
    expect(addDecimal('0', '0.1')).toBe('0.1');
    expect(addDecimal('0.1', '0.2')).toBe('0.3');
    expect(addDecimal('1.10', '-0.1')).toBe('1.00');
    expect(addDecimal('-5', '2.5')).toBe('-2.5');
    expect(addDecimal('99999999999999999999.99', '0.01')).toBe('100000000000000000000.00');
    expect(addDecimal('-0.05', '0.04')).toBe('-0.01');
  });

  it('counts an account and sums its ledger balances and debts', () => {
    const a = example();
    a.ledgers.push({ ledger_balance: '10.005' });
    a.debts = [{ aged_debt: [{ debt_amount: '100.50', due_date: '2026-01-01' }, { debt_amount: '0.5', due_date: '2026-02-01' }] }];
    const t = accountTotals(a);
    expect(t.accounts).toBe(1);
    expect(t.customers).toBe(a.customers.length);
    expect(t.meter_points).toBe(a.supply_addresses.reduce((n: number, s: Json) => n + s.meter_points.length, 0));
    expect(t.registers).toBeGreaterThan(0);
    expect(t.ledger_balances).toBe(addDecimal(example().ledgers[0].ledger_balance, '10.005'));
    expect(t.debts).toBe('101.00');
    const twice = addTotals(t, t);
    expect(twice.accounts).toBe(2);
    expect(twice.debts).toBe('202.00');
    expect(totalsEqual(t, { ...t, debts: '101' })).toBe(true);
    expect(totalsEqual(t, { ...t, debts: '101.01' })).toBe(false);
    expect(totalsEqual(emptyTotals(), emptyTotals())).toBe(true);
  });
});

describe('reconcile: the state file and the listing links', () => {
  const header: StateHeader = { kind: 'header', version: 1, input: '/book.ndjson', size: 10, batch_size: 500 };
  const line = (batch: number): BatchLine => ({ kind: 'batch', batch, results: [], source: emptyTotals(), platform: emptyTotals() });

  it('keeps finished batches across runs, skips a half-written line, refuses another book', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reconcile-state-'));
    const file = path.join(dir, 's.ndjson');
    const s1 = await ReconcileState.open(file, header, false);
    s1.append(line(0));
    s1.append(line(2));
    s1.close();
    fs.appendFileSync(file, '{"kind":"batch","batch":3,"res');
    const s2 = await ReconcileState.open(file, header, false);
    s2.append(line(1));
    s2.append(line(0));
    s2.close();
    const batches: number[] = [];
    for await (const b of readBatches(file)) batches.push(b.batch);
    expect(batches).toEqual([0, 2, 1]);
    await expect(ReconcileState.open(file, { ...header, size: 11 }, false)).rejects.toBeInstanceOf(ReconcileStateError);
    const s3 = await ReconcileState.open(file, { ...header, size: 11 }, true);
    s3.close();
    const again: number[] = [];
    for await (const b of readBatches(file)) again.push(b.batch);
    expect(again).toEqual([]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('follows rel="next"', () => {
    expect(nextLink('</v1/x/?limit=2&after=abc>; rel="next"')).toBe('/v1/x/?limit=2&after=abc');
    expect(nextLink(undefined)).toBeNull();
    expect(nextLink('</a>; rel="prev"')).toBeNull();
  });
});

describe('reconcile: the summary on the terminal', () => {
  const totals = { accounts: 3, customers: 4, meter_points: 5, meters: 5, registers: 6, ledger_balances: '-1.50', debts: '10.00' };
  const summary = {
    input: 'book.ndjson',
    apiUrl: 'http://x',
    classes: { matched: 1, missing: 1, not_final: 0, failed: 1, mismatched: 1, extra: 1 },
    bookErrors: 1,
    failedCodes: { import_process_failed_validation: 1 },
    findings: [
      { import_supplier: 'S', external_account_number: 'A-2', class: 'mismatched', detail: 'ledgers.0.ledger_balance' },
      { import_supplier: 'S', external_account_number: 'A-3', class: 'failed', detail: 'import_process_failed_validation' },
    ],
    totals: { source: totals, platform: { ...totals, accounts: 2, ledger_balances: '-1.5000', debts: '0' }, supplier: null },
    extrasMode: 'list' as const,
    outside: 1,
    verdict: 'findings' as const,
    allMatched: false,
    durationMs: 1500,
    accountsPerSecond: 2.7,
    batches: { done: 1, resumed: 0 },
    requests: { digests: 1, accounts: 2, listing: 1, totals: 1 },
    interrupted: false,
    listingUnavailable: [],
    totalsUnavailable: [],
    phases: [
      { phase: 'reading the book', unit: 'records', count: 4, ms: 300 },
      { phase: 'digests', unit: 'accounts', count: 4, ms: 900 },
    ],
    statePath: null,
    reportJson: 'r.json',
    reportCsv: 'r.csv',
  };

  it('fits one screen: the verdict, each class, the first findings, the totals side by side (≠ where they differ)', () => {
    const text = formatSummary(summary);
    const lines = text.split('\n');
    expect(lines.length).toBeLessThanOrEqual(25);
    expect(lines[0]).toContain('NOT EVERY ACCOUNT MATCHED');
    expect(text).toMatch(/failed +1 +import_process_failed_validation 1/);
    expect(text).toMatch(/mismatched +S\/A-2: ledgers\.0\.ledger_balance/);
    expect(lines.find((l) => l.trim().startsWith('accounts'))).toMatch(/3 +2 +≠$/);
    // Equal as numbers: no mark.
    expect(lines.find((l) => l.trim().startsWith('ledger_balances'))).not.toContain('≠');
    expect(lines.find((l) => l.trim().startsWith('debts'))).toContain('≠');
  });

  it('says what the phases counted and how long each took', () => {
    expect(formatSummary(summary)).toContain('phases: reading the book 4 records 0.3 s · digests 4 accounts 0.9 s');
  });

  it('counts the accounts outside a tranche without a finding, and shows the whole supplier\'s totals beside the book\'s', () => {
    const matched = { ...totals };
    const tranche = {
      ...summary,
      classes: { matched: 3, missing: 0, not_final: 0, failed: 0, mismatched: 0, extra: 3591 },
      bookErrors: 0,
      findings: [],
      totals: { source: matched, platform: matched, supplier: { ...matched, accounts: 3594 } },
      extrasMode: 'count' as const,
      outside: 3591,
      verdict: 'matched' as const,
      allMatched: true,
    };
    const lines = formatSummary(tranche).split('\n');
    expect(lines[0]).toContain('EVERY ACCOUNT MATCHED');
    expect(lines[0]).not.toContain('NOT');
    expect(lines.find((l) => l.trim().startsWith('extra'))).toMatch(/extra +3591 +imported for the supplier, not in this book: counted, not a finding/);
    // The book against its accounts as stored: equal, no mark; the whole supplier in a third column.
    expect(lines.find((l) => l.trim().startsWith('accounts'))).toMatch(/3 +3 +3594$/);
    // The same with --extras list: the whole supplier differs, marked.
    const whole = formatSummary({ ...tranche, extrasMode: 'list', verdict: 'extras', allMatched: false }).split('\n');
    expect(whole[0]).toContain('BUT THE SUPPLIER HOLDS ACCOUNTS OUTSIDE IT');
    expect(whole.find((l) => l.trim().startsWith('accounts'))).toMatch(/3 +3 +3594 +≠$/);
  });
});
