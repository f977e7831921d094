import fs from 'node:fs';
import path from 'node:path';
import { CsvReader } from './csv';
import { MAP_CODES, type MapIssue } from './issues';
import type { ColumnSpec, TableSpec } from './spec';

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

/**
 * One row as the reader hands it on: its declared columns' texts in the table's column order
 * (undefined: a record that holds none, as a fixed-width record of an unknown type).
 */
export type RowSink = (file: string, line: number, values: (string | undefined)[], error?: MapIssue) => void;

/** Bytes read from a file at a time: a table's files are streamed, never held whole. */
const PIECE = 4 << 20;

/**
 * Reads every file of a table with the map's own reader, rows held: rows with their physical
 * lines, or the errors that stop the run (a run streams them into its store instead:
 * mapping/loadExtract.ts; this is the reader as that sees it, for its tests).
 */
export function readTable(dir: string, table: TableSpec): TableRead {
  const files = tableFiles(dir, table.files);
  if (files.length === 0) return { rows: [], fatal: [noFiles(dir, table)] };
  const cols = [...table.columns.keys()];
  const rows: Row[] = [];
  const fatal: MapIssue[] = [];
  const first: FirstHeader = { header: null };
  for (const name of files) {
    const file: Row[] = [];
    const issues = streamTableFile(dir, name, table, first, (f, line, texts, error) => {
      const values: Record<string, string> = {};
      for (let i = 0; i < cols.length; i++) if (texts[i] !== undefined) values[cols[i]] = texts[i]!;
      file.push(error ? { file: f, line, values, error } : { file: f, line, values });
    });
    // A file's rows are kept only once it was read without an error that stops the run (as a run would).
    if (issues.length === 0) for (const r of file) rows.push(r);
    fatal.push(...issues);
  }
  return { rows, fatal };
}

/** The header of a table's first file, which every other file of it must repeat. */
export interface FirstHeader {
  header: string[] | null;
}

/** The error of a table with no file. */
export function noFiles(dir: string, table: TableSpec): MapIssue {
  return { code: MAP_CODES.fileMissing, account: null, file: table.files, ruleLine: table.line, detail: `table ${table.name}: no file ${table.files} in ${dir}` };
}

/** One file of a table streamed to `onRow`, a piece at a time: the errors that stop the run. */
export function streamTableFile(dir: string, file: string, table: TableSpec, first: FirstHeader, onRow: RowSink): MapIssue[] {
  return streamFile(path.join(dir, file), file, table, first, onRow);
}

/** A file's decoded text handed on in pieces: the first piece holds a character that is not white space. */
function streamFile(where: string, file: string, table: TableSpec, first: { header: string[] | null }, onRow: RowSink): MapIssue[] {
  const fd = fs.openSync(where, 'r');
  try {
    const parser = table.format === 'csv' ? new CsvRows(file, table, first, onRow) : new FixedRows(file, table, onRow);
    const decoder = table.encoding === 'utf-8' ? new TextDecoder('utf-8', { ignoreBOM: true }) : null;
    const buffer = Buffer.allocUnsafe(PIECE);
    let start = true;
    let lines = 0;
    // White space before anything else waits: a file of nothing but white space is empty.
    let blank = '';
    let seen = false;
    for (;;) {
      const got = fs.readSync(fd, buffer, 0, PIECE, null);
      let bytes = buffer.subarray(0, got);
      if (start && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
      start = false;
      let text = decoder ? decoder.decode(bytes, { stream: got > 0 }) : bytes.toString('latin1');
      if (table.encoding === 'windows-1252') text = text.replace(/[\u0080-\u009f]/g, (c) => CP1252_80_9F[c.charCodeAt(0) - 0x80]);
      if (decoder) {
        const bad = text.indexOf('\uFFFD');
        if (bad >= 0) {
          const line = lines + countLines(text, bad) + 1;
          return [{ code: MAP_CODES.fileEncoding, account: null, file, line, detail: `${file} is not UTF-8 at line ${line}: declare its encoding (windows-1252, iso-8859-1) on the table` }];
        }
        lines += countLines(text, text.length);
      }
      if (!seen) {
        if (/\S/.test(text)) {
          seen = true;
          text = blank + text;
          blank = '';
        } else blank += text;
      }
      if (seen) {
        const stop = parser.push(text, got === 0);
        if (stop) return stop;
      }
      if (got === 0) break;
    }
    if (!seen) return [{ code: MAP_CODES.fileEmpty, account: null, file, line: 1, detail: `${file} is empty${table.format === 'csv' ? ' (not even a header)' : ''}` }];
    return [];
  } finally {
    fs.closeSync(fd);
  }
}

function countLines(text: string, end: number): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < end; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** A CSV file's records to rows: its header checked against the table's columns and its first file's header. */
class CsvRows {
  private readonly reader: CsvReader;
  private header: string[] | null = null;
  private index: number[] = [];
  private readonly issues: MapIssue[] = [];

  constructor(
    private readonly file: string,
    private readonly table: TableSpec,
    private readonly first: { header: string[] | null },
    private readonly onRow: RowSink,
  ) {
    this.reader = new CsvReader(table.delimiter, table.quote, (fields, line) => this.record(fields, line));
  }

  /** The next piece; the errors that stop the run once the last piece is read. */
  push(text: string, final: boolean): MapIssue[] | null {
    const { file } = this;
    const error = this.reader.push(text, final);
    if (error) return [{ code: MAP_CODES.unterminatedQuote, account: null, file, line: error.line, detail: `${file}:${error.line}: ${error.detail}` }, ...this.issues];
    return final && this.issues.length > 0 ? this.issues : null;
  }

  private record(fields: string[], line: number): void {
    const { file, table } = this;
    if (!this.header) {
      const header = (this.header = fields.map((h) => h.trim()));
      const firstHeader = this.first.header;
      this.first.header ??= header;
      if (firstHeader && header.join('\u0000') !== firstHeader.join('\u0000')) {
        this.issues.push({ code: MAP_CODES.headerMismatch, account: null, file, line, detail: `${file}:${line}: header ${header.join(table.delimiter)} differs from the table's first file's (${firstHeader.join(table.delimiter)})` });
      }
      for (const col of table.columns.values()) {
        if (!header.includes(col.name)) this.issues.push({ code: MAP_CODES.columnMissing, account: null, file, line, column: col.name, ruleLine: col.line, detail: `${file}:${line}: no column ${col.name} in the header (the mapping declares it at line ${col.line})` });
      }
      this.index = [...table.columns.keys()].map((c) => header.indexOf(c));
      return;
    }
    // A file whose header is wrong is read on only for an unterminated quote: none of its rows count.
    if (this.issues.length > 0) return;
    if (fields.length === 1 && fields[0] === '') return;
    const values = this.index.map((i) => fields[i] ?? '');
    if (fields.length !== this.header.length) {
      this.onRow(file, line, values, { code: MAP_CODES.columnCount, account: null, file, line, detail: `${file}:${line}: ${fields.length} fields where the header has ${this.header.length}` });
    } else this.onRow(file, line, values);
  }
}

/** A fixed-width file's records to rows, line by line (a piece's last, unfinished line waits for the next). */
class FixedRows {
  private tail = '';
  private line = 0;
  private readonly width: number;
  private readonly last: number;
  private readonly columns: ColumnSpec[];

  constructor(
    private readonly file: string,
    private readonly table: TableSpec,
    private readonly onRow: RowSink,
  ) {
    this.columns = [...table.columns.values()];
    this.width = Math.max(...this.columns.map((c) => (c.start ?? 1) + (c.length ?? 0) - 1));
    this.last = table.columns.size > 0 ? lastLength(table) : 0;
  }

  push(text: string, final: boolean): MapIssue[] | null {
    const records = (this.tail + text).split(/\r?\n/);
    this.tail = final ? '' : records.pop()!;
    for (const record of records) this.record(record, ++this.line);
    return null;
  }

  private record(record: string, line: number): void {
    const { file, table, width } = this;
    if (record.trim() === '') return;
    const rt = table.recordType;
    if (rt) {
      const type = record.substr(rt.start - 1, rt.length);
      if (type === rt.header || type === rt.trailer) return;
      if (type !== rt.data) {
        this.onRow(file, line, this.columns.map(() => undefined), { code: MAP_CODES.recordType, account: null, file, line, value: type, detail: `${file}:${line}: record type "${type}" is not data (${rt.data}), header or trailer` });
        return;
      }
    }
    const values = this.columns.map((c) => record.substr((c.start ?? 1) - 1, c.length).trim());
    if (record.trimEnd().length > width || record.length < width) {
      const shorter = record.length < width;
      // A trailing blank field may be cut by an editor: only text past the last column is an error,
      // or a record that stops before a column that holds a value.
      if (!shorter || record.trimEnd().length < width - this.last) {
        this.onRow(file, line, values, { code: shorter ? MAP_CODES.recordShort : MAP_CODES.columnCount, account: null, file, line, detail: `${file}:${line}: the record is ${record.length} characters where its columns take ${width}` });
        return;
      }
    }
    this.onRow(file, line, values);
  }
}

function lastLength(table: TableSpec): number {
  const last = [...table.columns.values()].sort((a, b) => (b.start ?? 0) - (a.start ?? 0))[0];
  return last?.length ?? 0;
}
