import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inTranche, parseFraction } from '../../../lib/tranche';
import { runMap, type MapIssue } from '../../../mapping';

const EXAMPLE = path.join(__dirname, '../../../examples/legacy-extract');
let work: string;

/** A copy of the example extract with `change` applied to one file (Windows-1252 text). */
function extract(change?: { file: string; edit: (text: string) => string }): string {
  const dir = fs.mkdtempSync(path.join(work, 'x-'));
  for (const f of fs.readdirSync(path.join(EXAMPLE, 'extract'))) fs.copyFileSync(path.join(EXAMPLE, 'extract', f), path.join(dir, f));
  if (change) {
    const p = path.join(dir, change.file);
    fs.writeFileSync(p, Buffer.from(change.edit(fs.readFileSync(p).toString('latin1')), 'latin1'));
  }
  return dir;
}

async function run(dir: string, mapping = path.join(EXAMPLE, 'mapping.yaml'), extra: Partial<Parameters<typeof runMap>[0]> = {}) {
  const out = path.join(dir, 'book.ndjson');
  const summary = await runMap({ mapping, extracts: dir, out, ...extra });
  const errors = JSON.parse(fs.readFileSync(summary.report.json, 'utf8')).errors as MapIssue[];
  const book = fs.existsSync(out) ? fs.readFileSync(out, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l).external_account_number as string) : null;
  const held = fs.existsSync(summary.quarantine) ? fs.readFileSync(summary.quarantine, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l).account as string) : [];
  return { summary, errors, book, held, out };
}

/** A table's row of stats.objects: where its rows went. */
const rowsOf = (table: string, read: number, valid: number, quarantined: number, outsideTranche = 0, orphans = 0) => ({
  table, read, mapped: valid + quarantined, valid, quarantined, outsideTranche, orphans, leftOut: read - valid - quarantined - outsideTranche - orphans,
});

beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'map-run-'));
});
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

describe('data-import map on the example extract', () => {
  it('maps every open account, valid, and writes a byte-identical book on a re-run', async () => {
    const dir = extract();
    const first = await run(dir);
    expect(first.summary.stats).toMatchObject({ accounts: 3, valid: 3, quarantined: 0, orphans: 0 });
    expect(first.book).toEqual(['LEGACY-100045', 'LEGACY-100046', 'LEGACY-100048']);
    // Per object: the closed account 100047 and its rows are left out (its customer, meter point,
    // meter, register, EAC), and so is the customer row repeated whole (C2); each reading is in a
    // list once, though readings feed two (transfer and history).
    expect(first.summary.stats.objects).toEqual([
      rowsOf('accounts', 4, 3, 0),
      rowsOf('customers', 6, 4, 0),
      rowsOf('meter_points', 5, 4, 0),
      rowsOf('meters', 5, 4, 0),
      rowsOf('registers', 4, 3, 0),
      rowsOf('eacs', 4, 3, 0),
      rowsOf('readings', 9, 9, 0),
    ]);
    expect(first.summary.stats.objects.map((o) => o.leftOut)).toEqual([1, 2, 1, 1, 1, 1, 0]);
    const bytes = fs.readFileSync(first.out);
    const account = JSON.parse(bytes.toString('utf8').split('\n')[0]);
    expect(account.billing_name).toBe('Aoife Ní Bhriain');
    expect(account.last_statement_balance).toBe('-125.50');
    expect(account.customers.map((c: { given_name: string }) => c.given_name)).toEqual(['Aoife', 'Tomasz']);
    expect(account.supply_addresses).toHaveLength(1);
    expect(account.supply_addresses[0].meter_points.map((m: { supply_type: string }) => m.supply_type)).toEqual(['ELECTRICITY', 'GAS']);
    await run(dir);
    expect(fs.readFileSync(first.out).equals(bytes)).toBe(true);
  });

  it('tells the rows read as it loads them, every 4096 rows and at each table\'s end, up to the rows of the run', async () => {
    // 5,000 copies of one reading: rows repeated whole, left out of the accounts, but read.
    const dir = extract({ file: 'READINGS.CSV', edit: (text) => text + 'M1,1,H,30/09/2026,18101.0,R\r\n'.repeat(5_000) });
    const calls: number[] = [];
    const { summary } = await run(dir, undefined, { onRowsRead: (n) => calls.push(n) });
    const total = Object.values(summary.stats.rowsRead).reduce((a, b) => a + b, 0);
    expect(summary.stats.rowsRead.readings).toBe(5_009);
    expect(calls).toContain(4096);
    expect(calls.at(-1)).toBe(total);
    expect(calls.every((n, i) => i === 0 || n >= calls[i - 1]!)).toBe(true);
    expect(summary.stats.valid).toBe(3);
  });

  it('selects the same accounts by bucket as lib/tranche does', async () => {
    const bucket = parseFraction('1/2')!;
    const { book, summary } = await run(extract(), undefined, { tranche: { bucket } });
    expect(book).toEqual(['LEGACY-100045', 'LEGACY-100046', 'LEGACY-100048'].filter((n) => inTranche({ bucket }, n)));
    // 100046 falls outside the bucket: its account row, customer, meter point, meter, register, EAC and two readings.
    expect(book).toEqual(['LEGACY-100045', 'LEGACY-100048']);
    expect(summary.stats.objects).toEqual([
      rowsOf('accounts', 4, 2, 0, 1),
      rowsOf('customers', 6, 3, 0, 1),
      rowsOf('meter_points', 5, 3, 0, 1),
      rowsOf('meters', 5, 3, 0, 1),
      rowsOf('registers', 4, 2, 0, 1),
      rowsOf('eacs', 4, 2, 0, 1),
      rowsOf('readings', 9, 7, 0, 2),
    ]);
  });
});

type Case = [string, { file: string; edit: (t: string) => string }, { code: string; file: string; line: number; column?: string; account: string | null }];

const rowFaults: Case[] = [
  ['a code missing from its table', { file: 'READINGS.CSV', edit: (t) => t.replace('M3,1,H,30/09/2026,5012.5,R', 'M3,1,H,30/09/2026,5012.5,Q') }, { code: 'map_code_unmapped', file: 'READINGS.CSV', line: 7, column: 'READ_TYPE', account: '100046' }],
  ['a value that does not convert', { file: 'CUSTOMERS.CSV', edit: (t) => t.replace('30/06/1990', '31/06/1990') }, { code: 'map_value_unconvertible', file: 'CUSTOMERS.CSV', line: 5, column: 'DOB', account: '100046' }],
  ['a column check (a negative reading)', { file: 'READINGS.CSV', edit: (t) => t.replace('5012.5', '-5012.5') }, { code: 'map_check_failed', file: 'READINGS.CSV', line: 7, column: 'READ_VAL', account: '100046' }],
  ['a row with too many columns', { file: 'METERS.CSV', edit: (t) => t.replace('M3,MP3,19K0000001,20210101,S2,N', 'M3,MP3,19K0000001,20210101,S2,N,X') }, { code: 'map_row_column_count', file: 'METERS.CSV', line: 4, account: '100046' }],
  ['a duplicate key', { file: 'METERS.CSV', edit: (t) => `${t}M3,MP3,OTHER,20210101,S2,N\r\n` }, { code: 'map_duplicate_key', file: 'METERS.CSV', line: 7, column: 'MTR_ID', account: '100046' }],
  ['a validation error at its attr', { file: 'CUSTOMERS.CSV', edit: (t) => t.replace('07911 234567', '0123') }, { code: 'invalid_phone_number', file: 'CUSTOMERS.CSV', line: 5, column: 'MOBILE', account: '100046' }],
];

describe('injected faults in an extract', () => {
  it.each(rowFaults)('%s: report row at the source, its account quarantined whole, the others in the book', async (_name, change, expected) => {
    const { errors, book, held, summary } = await run(extract(change));
    expect(errors).toContainEqual(expect.objectContaining(expected));
    expect(held).toEqual(['100046']);
    expect(book).toEqual(['LEGACY-100045', 'LEGACY-100048']);
    expect(summary.stats.quarantined).toBe(1);
  });

  it('reports a row that joins no parent as an orphan, naming its file, line and join column', async () => {
    const { errors, book, summary } = await run(extract({ file: 'READINGS.CSV', edit: (t) => `${t}M9,1,H,30/09/2026,1.0,R\r\n` }));
    expect(errors).toContainEqual(expect.objectContaining({ code: 'map_orphan_row', file: 'READINGS.CSV', line: 11, column: 'MTR_ID', value: 'M9', account: null }));
    expect(book).toHaveLength(3);
    // Reported under both lists of readings (transfer and history), counted once as a row.
    expect(summary.stats.orphans).toBe(2);
    expect(summary.stats.objects.find((o) => o.table === 'readings')).toEqual(rowsOf('readings', 10, 9, 0, 0, 1));
  });

  const fileFaults: Case[] = [
    ['an unterminated quote', { file: 'ACCOUNTS.CSV', edit: (t) => t.replace('"£1,005",CR', '"£1,005,CR') }, { code: 'map_file_unterminated_quote', file: 'ACCOUNTS.CSV', line: 11, account: null }],
    ['a header that does not declare a column', { file: 'METERS.CSV', edit: (t) => t.replace('SERIAL', 'SERIAL_NO') }, { code: 'map_column_missing', file: 'METERS.CSV', line: 1, column: 'SERIAL', account: null }],
    ['an empty file', { file: 'EACS.CSV', edit: () => '' }, { code: 'map_file_empty', file: 'EACS.CSV', line: 1, account: null }],
  ];
  it.each(fileFaults)('%s: the run stops with the file and line, and writes no book', async (_name, change, expected) => {
    const { errors, book, summary } = await run(extract(change));
    expect(summary.fatal).toBe(true);
    expect(errors).toContainEqual(expect.objectContaining(expected));
    expect(book).toBeNull();
  });

  it('stops on a missing file, a second file whose header differs, and a wrong encoding', async () => {
    const missing = extract();
    fs.rmSync(path.join(missing, 'REGISTERS.CSV'));
    expect((await run(missing)).errors).toEqual([expect.objectContaining({ code: 'map_file_missing', file: 'REGISTERS.CSV' })]);

    const second = extract();
    fs.writeFileSync(path.join(second, 'METER_POINTS_2.CSV'), 'MP_ID,ACC_NO\r\nMP9,100046\r\n');
    expect((await run(second)).errors).toContainEqual(expect.objectContaining({ code: 'map_file_header_mismatch', file: 'METER_POINTS_2.CSV', line: 1 }));

    // The extract is Windows-1252; a mapping that says UTF-8 meets "í" as a byte that is not UTF-8.
    const utf8 = path.join(work, 'utf8.yaml');
    fs.writeFileSync(utf8, fs.readFileSync(path.join(EXAMPLE, 'mapping.yaml'), 'utf8').replace('files: ACCOUNTS.CSV\n    encoding: windows-1252', 'files: ACCOUNTS.CSV\n    encoding: utf-8'));
    fs.copyFileSync(path.join(EXAMPLE, 'titles.csv'), path.join(work, 'titles.csv'));
    const wrong = await run(extract(), utf8);
    expect(wrong.errors).toEqual([expect.objectContaining({ code: 'map_file_encoding', file: 'ACCOUNTS.CSV', line: 2 })]);
    expect(wrong.book).toBeNull();
  });
});

describe('accounts built and validated in worker threads', () => {
  it('writes the same book, quarantine and errors as the run\'s own thread, and an interrupted run writes no book', async () => {
    // An account quarantined by the mapping (100046: a code missing), one by the validator (100048: a phone number).
    const dir = extract({ file: 'READINGS.CSV', edit: (t) => t.replace('M3,1,H,30/09/2026,5012.5,R', 'M3,1,H,30/09/2026,5012.5,Q') });
    fs.writeFileSync(path.join(dir, 'CUSTOMERS.CSV'), Buffer.from(fs.readFileSync(path.join(dir, 'CUSTOMERS.CSV')).toString('latin1').replace('07534 567891', '0123'), 'latin1'));
    const outputs = async (threads: number) => {
      const r = await run(dir, undefined, { threads });
      return { book: fs.readFileSync(r.out, 'utf8'), quarantine: fs.readFileSync(r.summary.quarantine, 'utf8'), errors: r.errors, stats: { ...r.summary.stats, seconds: 0 } };
    };
    const own = await outputs(0);
    expect(own.stats).toMatchObject({ accounts: 3, valid: 1, quarantined: 2 });
    // 100045's rows in the book; 100046's and 100048's held (one customer, meter point, meter,
    // register, EAC and two readings each).
    expect(own.stats.objects).toEqual([
      rowsOf('accounts', 4, 1, 2),
      rowsOf('customers', 6, 2, 2),
      rowsOf('meter_points', 5, 2, 2),
      rowsOf('meters', 5, 2, 2),
      rowsOf('registers', 4, 1, 2),
      rowsOf('eacs', 4, 1, 2),
      rowsOf('readings', 9, 5, 4),
    ]);
    expect(own.errors.map((e) => e.code).sort()).toEqual(['invalid_phone_number', 'map_code_unmapped']);
    expect(await outputs(1)).toEqual(own);

    const stop = new AbortController();
    const out = path.join(dir, 'stopped.ndjson');
    const summary = await runMap({ mapping: path.join(EXAMPLE, 'mapping.yaml'), extracts: dir, out, threads: 1, signal: stop.signal, onProgress: () => stop.abort() });
    expect(summary.interrupted).toBe(true);
    expect(fs.existsSync(out) || fs.existsSync(`${out}.partial`)).toBe(false);
  });
});
