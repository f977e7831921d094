import fs from 'node:fs';
import path from 'node:path';
import { parseCsvText } from './csv';
import { MAP_CODES, type MapIssue } from './issues';
import type { TableSpec } from './spec';

/** One data row of a legacy table: its file (relative to the extract folder), physical line and texts. */
export interface Row {
  /** Its place in the run's read order (mapping/store.ts numbers the rows it holds). */
  ord?: number;
  file: string;
  line: number;
  values: Record<string, string>;
  /** The row could be read only in part (too many or too few columns): its account is blocked. */
  error?: MapIssue;
}

export interface TableRead {
  rows: Row[];
  /** Errors that make the table unreadable (the run stops: no account may miss a row unseen). */
  fatal: MapIssue[];
}

/** The files of a table: a name or a glob (`*`, `?` in the file name) under the extract folder, sorted. */
export function tableFiles(dir: string, pattern: string): string[] {
  const folder = path.dirname(pattern);
  const base = path.basename(pattern);
  if (!/[*?]/.test(base)) return fs.existsSync(path.join(dir, pattern)) ? [pattern] : [];
  const re = new RegExp(`^${base.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
  const where = path.join(dir, folder);
  if (!fs.existsSync(where)) return [];
  return fs
    .readdirSync(where)
    .filter((f) => re.test(f))
    .sort()
    .map((f) => path.join(folder, f));
}

/**
 * Windows-1252's characters at 0x80–0x9F (€, ‚, ƒ, „, …, smart quotes, Œ, Š, Ž…): Node's own
 * TextDecoder built with small ICU reads windows-1252 as ISO-8859-1, so the table is here.
 * Bytes 0x81, 0x8D, 0x8F, 0x90, 0x9D, undefined in Windows-1252, stay as their code points.
 */
const CP1252_80_9F = '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

/**
 * The text of a file in its declared encoding, a UTF-8 byte-order mark dropped. A file declared
 * UTF-8 that is not (a Windows-1252 extract sent as is) is an error at the line of the first byte
 * that does not decode, never a value quietly turned to U+FFFD.
 */
export function decode(bytes: Buffer, encoding: TableSpec['encoding'], file: string): { text: string } | { issue: MapIssue } {
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  const body = bytes.subarray(start);
  const text = encoding === 'utf-8' ? new TextDecoder('utf-8').decode(body) : body.toString('latin1');
  if (encoding === 'windows-1252') return { text: text.replace(/[\u0080-\u009f]/g, (c) => CP1252_80_9F[c.charCodeAt(0) - 0x80]) };
  if (encoding === 'utf-8') {
    const bad = text.indexOf('\uFFFD');
    if (bad >= 0) {
      const line = text.slice(0, bad).split('\n').length;
      return { issue: { code: MAP_CODES.fileEncoding, account: null, file, line, detail: `${file} is not UTF-8 at line ${line}: declare its encoding (windows-1252, iso-8859-1) on the table` } };
    }
  }
  return { text };
}

/** Reads every file of a table: rows with their physical lines, or the errors that stop the run. */
export function readTable(dir: string, table: TableSpec): TableRead {
  const files = tableFiles(dir, table.files);
  const fatal: MapIssue[] = [];
  const rows: Row[] = [];
  if (files.length === 0) {
    fatal.push({ code: MAP_CODES.fileMissing, account: null, file: table.files, ruleLine: table.line, detail: `table ${table.name}: no file ${table.files} in ${dir}` });
    return { rows, fatal };
  }
  let firstHeader: string[] | null = null;
  for (const file of files) {
    const bytes = fs.readFileSync(path.join(dir, file));
    const decoded = decode(bytes, table.encoding, file);
    if ('issue' in decoded) {
      fatal.push(decoded.issue);
      continue;
    }
    if (decoded.text.trim() === '') {
      fatal.push({ code: MAP_CODES.fileEmpty, account: null, file, line: 1, detail: `${file} is empty${table.format === 'csv' ? ' (not even a header)' : ''}` });
      continue;
    }
    const read: TableRead & { header?: string[] } = table.format === 'csv' ? readCsv(decoded.text, file, table, firstHeader) : readFixed(decoded.text, file, table);
    firstHeader ??= read.header ?? null;
    fatal.push(...read.fatal);
    for (const r of read.rows) rows.push(r);
  }
  return { rows, fatal };
}

function readCsv(text: string, file: string, table: TableSpec, firstHeader: string[] | null): TableRead & { header?: string[] } {
  const parsed = parseCsvText(text, table.delimiter, table.quote);
  const fatal: MapIssue[] = [];
  if (parsed.error) fatal.push({ code: MAP_CODES.unterminatedQuote, account: null, file, line: parsed.error.line, detail: `${file}:${parsed.error.line}: ${parsed.error.detail}` });
  const [head, ...records] = parsed.records;
  const header = head.fields.map((h) => h.trim());
  if (firstHeader && header.join('\u0000') !== firstHeader.join('\u0000')) {
    fatal.push({ code: MAP_CODES.headerMismatch, account: null, file, line: head.line, detail: `${file}:${head.line}: header ${header.join(table.delimiter)} differs from the table's first file's (${firstHeader.join(table.delimiter)})` });
  }
  for (const col of table.columns.values()) {
    if (!header.includes(col.name)) fatal.push({ code: MAP_CODES.columnMissing, account: null, file, line: head.line, column: col.name, ruleLine: col.line, detail: `${file}:${head.line}: no column ${col.name} in the header (the mapping declares it at line ${col.line})` });
  }
  if (fatal.length > 0) return { rows: [], fatal, header };
  const index = [...table.columns.keys()].map((c) => [c, header.indexOf(c)] as const);
  const rows: Row[] = [];
  for (const r of records) {
    if (r.fields.length === 1 && r.fields[0] === '') continue;
    const values: Record<string, string> = {};
    for (const [c, i] of index) values[c] = r.fields[i] ?? '';
    const row: Row = { file, line: r.line, values };
    if (r.fields.length !== header.length) {
      row.error = { code: MAP_CODES.columnCount, account: null, file, line: r.line, detail: `${file}:${r.line}: ${r.fields.length} fields where the header has ${header.length}` };
    }
    rows.push(row);
  }
  return { rows, fatal: [], header };
}

function readFixed(text: string, file: string, table: TableSpec): TableRead {
  const rows: Row[] = [];
  const fatal: MapIssue[] = [];
  const rt = table.recordType;
  const width = Math.max(...[...table.columns.values()].map((c) => (c.start ?? 1) + (c.length ?? 0) - 1));
  text.split(/\r?\n/).forEach((record, i) => {
    const line = i + 1;
    if (record.trim() === '') return;
    if (rt) {
      const type = record.substr(rt.start - 1, rt.length);
      if (type === rt.header || type === rt.trailer) return;
      if (type !== rt.data) {
        rows.push({ file, line, values: {}, error: { code: MAP_CODES.recordType, account: null, file, line, value: type, detail: `${file}:${line}: record type "${type}" is not data (${rt.data}), header or trailer` } });
        return;
      }
    }
    const values: Record<string, string> = {};
    for (const c of table.columns.values()) values[c.name] = record.substr((c.start ?? 1) - 1, c.length).trim();
    const row: Row = { file, line, values };
    if (record.trimEnd().length > width || record.length < width) {
      const shorter = record.length < width;
      // A trailing blank field may be cut by an editor: only text past the last column is an error,
      // or a record that stops before a column that holds a value.
      if (!shorter || record.trimEnd().length < width - (table.columns.size > 0 ? lastLength(table) : 0)) {
        row.error = { code: shorter ? MAP_CODES.recordShort : MAP_CODES.columnCount, account: null, file, line, detail: `${file}:${line}: the record is ${record.length} characters where its columns take ${width}` };
      }
    }
    rows.push(row);
  });
  return { rows, fatal };
}

function lastLength(table: TableSpec): number {
  const last = [...table.columns.values()].sort((a, b) => (b.start ?? 0) - (a.start ?? 0))[0];
  return last?.length ?? 0;
}
