import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateBook } from '../../../cli/generate';
import { loadMapping, runMap, writeLegacyExtract } from '../../../mapping';
import { nativePlan } from '../../../mapping/nativeCsv';
import type { TableSpec } from '../../../mapping/spec';

const MAPPING = path.join(__dirname, '../../../examples/roundtrip/mapping.yaml');
let work: string;

beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'map-native-'));
});
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** The book, quarantine and report of a run, with DuckDB's reader allowed or not, the rows in memory or in a file. */
async function mapped(dir: string, nativeCsv: boolean, inMemory?: boolean) {
  const out = path.join(work, `${path.basename(dir)}-${nativeCsv}-${inMemory}.ndjson`);
  const summary = await runMap({ mapping: MAPPING, extracts: dir, out, nativeCsv, threads: 0, inMemory });
  const read = (f: string) => (fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : null);
  return { book: read(out), quarantine: read(summary.quarantine), csv: read(summary.report.csv), stats: { ...summary.stats, seconds: 0 } };
}

describe("DuckDB's CSV reader (mapping/nativeCsv.ts)", () => {
  it("gives the map's rows, lines and errors: quoted line breaks, CRLF, a short record, a duplicate key", async () => {
    const dir = path.join(work, 'x');
    writeLegacyExtract([...generateBook({ seed: 'native', count: 40, profile: 'typical' })] as unknown as Record<string, unknown>[], dir);
    const edit = (file: string, f: (lines: string[]) => string[], eol = '\n') => {
      const p = path.join(dir, file);
      fs.writeFileSync(p, f(fs.readFileSync(p, 'utf8').split('\n')).join(eol));
    };
    // Notes: a body over three lines (not JSON: an error at its line), then a value that is not JSON
    // further down (its line counts the breaks above); the file in CRLF.
    edit('notes.csv', (l) => l.map((x, i) => (i === 2 ? x.replace(/^([^,]*,[^,]*,[^,]*,)"""/, '$1"""line one\nline two\n') : i === 9 ? x.replace(/^([^,]*,[^,]*,[^,]*,)/, '$1{oops') : x)), '\r\n');
    // Statements: a record a field short (the map's reader reads the file and reports it).
    edit('statements.csv', (l) => l.map((x, i) => (i === 5 ? x.slice(0, x.lastIndexOf(',')) : x)));
    // Customers: a key twice with different values.
    edit('customers.csv', (l) => [...l.slice(0, -1), l[3].replace(/,true,|,false,/, ',maybe,'), '']);
    // The notes and customers go through DuckDB's reader, the statements through the map's.
    const tables = loadMapping(MAPPING).tables;
    expect(nativePlan(path.join(dir, 'notes.csv'), tables.get('notes')!, null)).not.toBeNull();
    expect(nativePlan(path.join(dir, 'customers.csv'), tables.get('customers')!, null)).not.toBeNull();
    const duck = await mapped(dir, true);
    const map = await mapped(dir, false);
    expect(duck).toEqual(map);
    // The same again with the rows in a database file (a small extract is held in memory).
    expect(await mapped(dir, true, false)).toEqual(map);
    const csv = map.csv!.split('\n');
    // The body opened on line 3 runs to line 5; the bad value of record 9 is on line 12.
    expect(csv.some((r) => r.includes(',notes.csv,3,'))).toBe(true);
    expect(csv.some((r) => r.includes(',notes.csv,12,'))).toBe(true);
    expect(csv.some((r) => r.includes('map_column_count') || r.includes('statements.csv,6,'))).toBe(true);
    expect(csv.some((r) => r.includes('map_duplicate_key'))).toBe(true);
  });

  const table = { name: 't', line: 1, files: 'f.csv', format: 'csv', encoding: 'utf-8', delimiter: ',', quote: '"', columns: new Map([['a', {}], ['b', {}]]) } as unknown as TableSpec;
  it.each([
    ['a lone CR', 'a,b\n1,x\ry\n'],
    ['a blank line', 'a,b\n1,2\n\n3,4\n'],
    ['blanks after a quoted field', 'a,b\n1,"x" \n'],
    ['blanks before a quoted field', 'a,b\n1, "x"\n'],
    ['a byte-order mark', '\ufeffa,b\n1,2\n'],
    ['a quoted header', '"a",b\n1,2\n'],
    ['a header without a declared column', 'a,c\n1,2\n'],
  ])("leaves a file with %s to the map's reader", (_name, text) => {
    const p = path.join(work, 'f.csv');
    fs.writeFileSync(p, text);
    expect(nativePlan(p, table, null)).toBeNull();
  });

  it('takes a plain file, CRLF and quoted line breaks included, with its physical lines', () => {
    const p = path.join(work, 'f.csv');
    fs.writeFileSync(p, 'a,b\r\n1,"x\r\ny"\r\n2,"a ""b"" c"\r\n');
    expect(nativePlan(p, table, null)).toEqual({ header: ['a', 'b'], lines: 4 });
    fs.writeFileSync(p, 'a,b\n1,2');
    expect(nativePlan(p, table, ['a', 'b'])).toEqual({ header: ['a', 'b'], lines: 2 });
    expect(nativePlan(p, table, ['a', 'c'])).toBeNull();
  });
});
