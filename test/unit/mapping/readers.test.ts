import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decode, parseCsvText, readTable } from '../../../mapping';
import { CsvReader } from '../../../mapping/csv';
import type { ColumnSpec, TableSpec } from '../../../mapping/spec';

function table(over: Partial<TableSpec>, columns: Partial<ColumnSpec>[]): TableSpec {
  return {
    name: 't',
    line: 3,
    files: 'T.CSV',
    format: 'csv',
    encoding: 'utf-8',
    delimiter: ',',
    quote: '"',
    columns: new Map(columns.map((c, i) => [c.name!, { line: 10 + i, type: 'string', emptyIsNull: true, ...c } as ColumnSpec])),
    ...over,
  };
}

describe('CSV records', () => {
  it('counts physical lines across quoted line breaks, CRLF and doubled quotes', () => {
    const r = parseCsvText('A,B\r\n1,"x\r\ny"\r\n2,"say ""hi"""\r\n3,z', ',', '"');
    expect(r.error).toBeUndefined();
    expect(r.records.map((x) => [x.line, ...x.fields])).toEqual([
      [1, 'A', 'B'],
      [2, '1', 'x\r\ny'],
      [4, '2', 'say "hi"'],
      [5, '3', 'z'],
    ]);
  });

  it('reports an unterminated quote at the line it opens', () => {
    const r = parseCsvText('A,B\n1,ok\n2,"never\nclosed\n3,x\n', ',', '"');
    expect(r.error?.line).toBe(3);
  });

  it('reads a text fed in pieces as it reads it whole, wherever the pieces are cut', () => {
    const text = 'A,B,C\r\n1,"x\r\ny",z\n2,"say ""hi""",\r3,""""\n\n4,a"b,"q"r\r\n5,,"last"';
    const whole = parseCsvText(text, ',', '"');
    const differ: string[] = [];
    for (let cut = 0; cut <= text.length; cut++) {
      for (const size of [1, 3, 7]) {
        const records: { fields: string[]; line: number }[] = [];
        const reader = new CsvReader(',', '"', (fields, line) => records.push({ fields, line }));
        const rest = text.slice(cut);
        const pieces = [text.slice(0, cut), ...Array.from({ length: Math.ceil(rest.length / size) }, (_, i) => rest.slice(i * size, (i + 1) * size))];
        const errors = [...pieces.map((p) => reader.push(p, false)), reader.push('', true)].filter((e) => e !== undefined);
        if (errors.length > 0 || JSON.stringify(records) !== JSON.stringify(whole.records)) differ.push(`cut ${cut}, pieces of ${size}`);
      }
    }
    expect(differ).toEqual([]);
    expect(whole.records.map((r) => [r.line, ...r.fields])).toEqual([
      [1, 'A', 'B', 'C'],
      [2, '1', 'x\r\ny', 'z'],
      [4, '2', 'say "hi"', ''],
      [5, '3', '"'],
      [6, ''],
      [7, '4', 'a"b', 'qr'],
      [8, '5', '', 'last'],
    ]);
  });

  it('reports an unterminated quote fed in pieces at the line it opens', () => {
    const reader = new CsvReader(',', '"', () => undefined);
    expect(reader.push('A,B\n1,ok\n2,"nev', false)).toBeUndefined();
    expect(reader.push('er\nclosed\n3,x\n', false)).toBeUndefined();
    expect(reader.push('', true)?.line).toBe(3);
  });

  it('reads a tab-separated file', () => {
    expect(parseCsvText('A\tB\n1\t2\n', '\t', '"').records[1].fields).toEqual(['1', '2']);
  });
});

describe('decoding', () => {
  it('drops a UTF-8 byte-order mark and reads Windows-1252 and ISO-8859-1', () => {
    expect(decode(Buffer.from([0xef, 0xbb, 0xbf, 0x41]), 'utf-8', 'f')).toEqual({ text: 'A' });
    expect(decode(Buffer.from([0x80, 0x20, 0xe9]), 'windows-1252', 'f')).toEqual({ text: '€ é' });
    expect(decode(Buffer.from([0xe9]), 'iso-8859-1', 'f')).toEqual({ text: 'é' });
  });

  it('refuses bytes that are not UTF-8 in a file declared UTF-8, naming the line', () => {
    const r = decode(Buffer.from('A\nB\nCaf\xe9\n', 'latin1'), 'utf-8', 'f.csv');
    expect('issue' in r && [r.issue.code, r.issue.line]).toEqual(['map_file_encoding', 3]);
  });
});

describe('reading a table', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'map-readers-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads a glob of files in name order, each row with its file and physical line', () => {
    fs.writeFileSync(path.join(dir, 'P_2.CSV'), 'ID,NAME\n3,"c\nc"\n');
    fs.writeFileSync(path.join(dir, 'P_1.CSV'), 'ID,NAME\n1,a\n2,b\n');
    const r = readTable(dir, table({ files: 'P_*.CSV' }, [{ name: 'ID' }, { name: 'NAME' }]));
    expect(r.fatal).toEqual([]);
    expect(r.rows.map((x) => `${x.file}:${x.line}:${x.values.ID}`)).toEqual(['P_1.CSV:2:1', 'P_1.CSV:3:2', 'P_2.CSV:2:3']);
  });

  it('gives a row with too many columns its error and keeps the rest', () => {
    fs.writeFileSync(path.join(dir, 'W.CSV'), 'ID,NAME\n1,a\n2,b,extra\n');
    const r = readTable(dir, table({ files: 'W.CSV' }, [{ name: 'ID' }, { name: 'NAME' }]));
    expect(r.rows[1].error).toMatchObject({ code: 'map_row_column_count', file: 'W.CSV', line: 3 });
    expect(r.rows[0].error).toBeUndefined();
  });

  it('stops on a missing file, an empty file, a header without a declared column, and a second header that differs', () => {
    fs.writeFileSync(path.join(dir, 'E.CSV'), '');
    fs.writeFileSync(path.join(dir, 'H_1.CSV'), 'ID,NAME\n1,a\n');
    fs.writeFileSync(path.join(dir, 'H_2.CSV'), 'ID,NAME,MORE\n2,b,c\n');
    const cols = [{ name: 'ID' }, { name: 'NAME' }];
    expect(readTable(dir, table({ files: 'NONE.CSV' }, cols)).fatal[0]).toMatchObject({ code: 'map_file_missing', ruleLine: 3 });
    expect(readTable(dir, table({ files: 'E.CSV' }, cols)).fatal[0]).toMatchObject({ code: 'map_file_empty', file: 'E.CSV', line: 1 });
    expect(readTable(dir, table({ files: 'H_1.CSV' }, [...cols, { name: 'GONE' }])).fatal[0]).toMatchObject({ code: 'map_column_missing', file: 'H_1.CSV', line: 1, column: 'GONE', ruleLine: 12 });
    expect(readTable(dir, table({ files: 'H_*.CSV' }, cols)).fatal[0]).toMatchObject({ code: 'map_file_header_mismatch', file: 'H_2.CSV', line: 1 });
  });

  it('reads fixed-width records by position, skipping header and trailer records', () => {
    fs.writeFileSync(path.join(dir, 'F.DAT'), 'H20261101\nD0001   00012550\nD0002   00000099\nX0003   00000001\nT00000002\n');
    const t = table({ files: 'F.DAT', format: 'fixed', recordType: { start: 1, length: 1, data: 'D', header: 'H', trailer: 'T' } }, [
      { name: 'ID', start: 2, length: 4 },
      { name: 'AMOUNT', start: 9, length: 8 },
    ]);
    const r = readTable(dir, t);
    expect(r.rows.map((x) => [x.line, x.values.ID, x.values.AMOUNT, x.error?.code])).toEqual([
      [2, '0001', '00012550', undefined],
      [3, '0002', '00000099', undefined],
      [4, undefined, undefined, 'map_record_type_unknown'],
    ]);
  });
});
