import fs from 'node:fs';
import { isUtf8 } from 'node:buffer';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { TableSpec } from './spec';

/**
 * A UTF-8 CSV file read by DuckDB's own reader (`read_csv`, in C++ on every core) instead of the map's
 * (mapping/csv.ts): the same rows, texts and physical lines, or nothing at all, and the file is read
 * by the map's reader after all. The map's reader is the reference; DuckDB's differs from it on a few
 * inputs (spaces around a quoted field, a delimiter at the end of a record, a lone CR, a blank line,
 * bytes that are not UTF-8), so a file is given to DuckDB only when a scan of its bytes finds none
 * of those, and its rows are kept only when each has exactly the header's number of fields and the
 * records and the lines inside quoted fields add up to the file's physical lines. A file with any
 * error the map reports (a short row, a bad header) is read by the map's reader, which reports it.
 */
export interface NativePlan {
  /** The header's names, trimmed (as the map's reader takes them). */
  header: string[];
  /** Physical lines of the file (its LFs, and a last line without one). */
  lines: number;
}

const PIECE = 4 << 20;
const LF = 10;
const CR = 13;
const SPACE = 32;
const TAB = 9;

/** Whether the scan finds the file fit for DuckDB's reader: its header and lines, or null. */
export function nativePlan(where: string, table: TableSpec, firstHeader: string[] | null): NativePlan | null {
  if (table.format !== 'csv' || table.encoding !== 'utf-8' || table.quote === '') return null;
  const q = table.quote.charCodeAt(0);
  const d = table.delimiter.charCodeAt(0);
  if (q > 127 || d > 127 || d === SPACE || d === TAB || q === SPACE || q === TAB) return null;
  const fd = fs.openSync(where, 'r');
  try {
    const buffer = Buffer.allocUnsafe(PIECE + 8);
    // Bytes carried to the next read: an unfinished UTF-8 character at the end of a piece.
    let carry = 0;
    // The last bytes scanned, scanned again with the next piece: a pattern cut by the end of a piece is seen whole.
    let tail = Buffer.alloc(0);
    let lfs = 0;
    let header: string[] | null = null;
    let last = -1;
    for (let first = true; ; first = false) {
      const got = fs.readSync(fd, buffer, carry, PIECE, null);
      const end = carry + got;
      const final = got === 0;
      if (first) {
        header = headerOf(buffer.subarray(0, end), table, q, firstHeader);
        if (!header) return null;
      }
      // Up to the last complete UTF-8 character (everything at the end of the file).
      let upTo = end;
      if (!final && end > 0) {
        upTo = end - 1;
        while (upTo > 0 && end - upTo < 4 && (buffer[upTo] & 0xc0) === 0x80) upTo--;
        if (buffer[upTo] < 0x80) upTo = end;
      }
      const scan = buffer.subarray(0, upTo);
      if (!isUtf8(scan)) return null;
      const region = tail.length > 0 ? Buffer.concat([tail, scan]) : scan;
      if (region.indexOf('\uFFFD') >= 0 || !plainBytes(region, q, d, final)) return null;
      for (let i = scan.indexOf(LF); i >= 0; i = scan.indexOf(LF, i + 1)) lfs++;
      if (upTo > 0) last = scan[upTo - 1];
      if (final) break;
      tail = Buffer.from(region.subarray(Math.max(0, region.length - 64)));
      buffer.copy(buffer, 0, upTo, end);
      carry = end - upTo;
    }
    if (!header) return null;
    return { header, lines: lfs + (last === LF ? 0 : 1) };
  } finally {
    fs.closeSync(fd);
  }
}

/** The header of the first piece when the map's reader would take it as is and find it right; else null. */
function headerOf(bytes: Buffer, table: TableSpec, q: number, firstHeader: string[] | null): string[] | null {
  // Empty, a byte-order mark, white space or a quote first: the map's reader (it has the rules for those).
  const b = bytes[0];
  if (bytes.length === 0 || b < 0x21 || b > 0x7e || b === q) return null;
  const nl = bytes.indexOf(LF);
  if (nl < 0) return null;
  const line = bytes.subarray(0, nl);
  if (line.indexOf(q) >= 0 || !isUtf8(line)) return null;
  const header = line.toString('utf8').replace(/\r$/, '').split(table.delimiter).map((h) => h.trim());
  if (firstHeader && header.join('\u0000') !== firstHeader.join('\u0000')) return null;
  for (const c of table.columns.keys()) if (!header.includes(c)) return null;
  return header;
}

/**
 * No byte sequence where DuckDB's reader and the map's part ways: a lone CR (the map's reader ends a
 * record there), a blank line (skipped by DuckDB without a trace), a quote with only spaces or tabs
 * between it and a delimiter or line end (DuckDB drops those spaces, the map keeps them). A match in
 * a quoted text is a false alarm that costs only the map's slower reader.
 */
function plainBytes(b: Buffer, q: number, d: number, final: boolean): boolean {
  const n = b.length;
  // At the end of a piece that is not the last, what follows is seen with the next piece.
  for (let i = b.indexOf(CR); i >= 0; i = b.indexOf(CR, i + 1)) {
    if (i + 1 < n ? b[i + 1] !== LF : final) return false;
  }
  if (b.indexOf('\n\n') >= 0 || b.indexOf('\n\r\n') >= 0) return false;
  const blank = (c: number) => c === SPACE || c === TAB;
  const edge = (c: number) => c === d || c === LF || c === CR;
  // Each run of blanks (found by a byte search: blanks are few in the large cells, quotes many).
  for (const ws of [SPACE, TAB]) {
    for (let i = b.indexOf(ws); i >= 0; ) {
      let j = i + 1;
      while (j < n && blank(b[j])) j++;
      // A quote then blanks to a delimiter or a line's end (or the end of the text scanned: the file's, or blanks that run on into the next piece).
      if (i > 0 && b[i - 1] === q && (j >= n || edge(b[j]))) return false;
      // Blanks then a quote, after a delimiter or at a line's start (or the start of the text scanned).
      if (j < n && b[j] === q) {
        let k = i;
        while (k > 0 && blank(b[k - 1])) k--;
        if (k === 0 || edge(b[k - 1])) return false;
      }
      i = j < n ? b.indexOf(ws, j) : -1;
    }
  }
  return true;
}

/** Where DuckDB puts a file's rows: the store's table for it and what each stored row carries. */
export interface NativeTarget {
  table: string;
  /** The first row's `_ord`. */
  ord: number;
  /** The file's number (`_f`). */
  file: number;
  /** The declared columns, in the order of a stored row's texts. */
  columns: string[];
  /** The columns of the table's own key (`_dk`), if it has one. */
  key?: string[];
  /** The join keys it carries, each with the columns that make it. */
  keys: [string, string[]][];
}

/** The characters JavaScript's `trim()` takes off, for DuckDB's trim (the keys are trimmed as the map's reader trims them). */
const JS_WHITE_SPACE = '\t\n\u000b\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff';

const literal = (s: string) => `'${s.replace(/'/g, "''")}'`;

/**
 * Reads the file with DuckDB into the store's table: the number of rows, or null when DuckDB's rows
 * are not exactly the map's reader's (nothing is stored then).
 */
export async function insertNative(conn: DuckDBConnection, where: string, table: TableSpec, plan: NativePlan, target: NativeTarget): Promise<number | null> {
  const n = plan.header.length;
  const col = (i: number) => `c${i}`;
  // One column more than the header, and a short record padded with NULL: a record with a field too
  // many or too few is seen (DuckDB would otherwise take a delimiter at the end of a record as none).
  const columns = `{${[...Array(n + 1).keys()].map((i) => `'${col(i)}': 'VARCHAR'`).join(', ')}}`;
  const options = [
    'auto_detect = false',
    'header = true',
    `delim = ${literal(table.delimiter)}`,
    `quote = ${literal(table.quote)}`,
    `escape = ${literal(table.quote)}`,
    `columns = ${columns}`,
    'strict_mode = true',
    'null_padding = true',
    'allow_quoted_nulls = false',
    // An empty field is an empty text, as the map's reader has it: NULL is only the padding.
    'nullstr = chr(0)',
    // DuckDB's longest record (its default, 2 MB: its read buffers are 16 times that, per thread);
    // a file with a longer one is read by the map's reader.
  ].join(', ');
  // A NULL in the header's columns is a record too short (or a field of one NUL character), a text
  // in the extra column a record too long: the row's `_nl` is -1, and the map's reader reads the file
  // and reports it. Else `_nl` is the row's line breaks inside quoted fields.
  const wrong = [...[...Array(n).keys()].map((i) => `${col(i)} IS NULL`), `${col(n)} IS NOT NULL`].join(' OR ');
  const breaks = [...Array(n).keys()].map((i) => `(strlen(${col(i)}) - strlen(replace(${col(i)}, chr(10), '')))`).join(' + ');
  const at = (c: string) => col(plan.header.indexOf(c));
  const key = (cs: string[]) => (cs.length === 1 ? trimmed(at(cs[0])) : `concat_ws(chr(1), ${cs.map((c) => trimmed(at(c))).join(', ')})`);
  // (counted only in a row that has one: most have none, and a search is cheaper than a count)
  const anyBreak = [...Array(n).keys()].map((i) => `contains(${col(i)}, chr(10))`).join(' OR ');
  // What each row stores but its number, worked out as DuckDB reads the file on every core, into a
  // table kept in the file's order; then numbered by that order (its rowid) into the store's table.
  // Numbering as it reads (row_number over the file) made DuckDB read and work out every row on one core.
  const computed: [string, string][] = [
    ['_v', `to_json([${target.columns.map(at).join(', ')}])`],
    ['_nl', `CASE WHEN ${wrong} THEN -1 WHEN ${anyBreak} THEN ${breaks} ELSE 0 END`],
  ];
  if (target.key) computed.push(['_dk', key(target.key)]);
  for (const [name, cs] of target.keys) computed.push([name, key(cs)]);
  const names = ['_ord', '_f', '_l', '_e', ...computed.map(([n]) => n)];
  const values = [`${target.ord} + rowid`, `${target.file}`, 'rowid + 2', 'NULL', ...computed.map(([n]) => n)];
  const rows = `${target.table} WHERE _f = ${target.file}`;
  await conn.run('SET preserve_insertion_order = true');
  try {
    await conn.run(`CREATE OR REPLACE TEMP TABLE _native AS SELECT ${computed.map(([n, e]) => `${e} AS ${n}`).join(', ')} FROM read_csv(${literal(where)}, ${options})`);
    await conn.run(`INSERT INTO ${target.table} (${names.join(', ')}) SELECT ${values.join(', ')} FROM _native`);
  } catch {
    return null; // the file is not in the table: the insert is one statement, after the read
  } finally {
    await conn.run('DROP TABLE IF EXISTS _native');
    await conn.run('SET preserve_insertion_order = false');
  }
  const [count, wrongRows, inside] = (await conn.runAndReadAll(`SELECT count(*), count(*) FILTER (WHERE _nl < 0), coalesce(sum(_nl), 0) FROM ${rows}`)).getRows()[0].map(Number);
  if (wrongRows > 0 || count + 1 + inside !== plan.lines) {
    await conn.run(`DELETE FROM ${rows}`);
    return null;
  }
  // A quoted field over several lines: the rows after it start lines further on.
  if (inside > 0) {
    await conn.run(
      `UPDATE ${target.table} SET _l = s.l FROM (SELECT _ord, _l + coalesce(sum(_nl) OVER (ORDER BY _ord ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS l FROM ${rows}) s WHERE ${target.table}._ord = s._ord`,
    );
  }
  return count;
}

/** A key as JavaScript's `trim()` has it; DuckDB's trim with a set of characters is slow, so only a text with something but printable ASCII at an end goes through it. */
const trimmed = (c: string) => `CASE WHEN ascii(${c}) BETWEEN 33 AND 126 AND ascii(${c}[-1]) BETWEEN 33 AND 126 THEN ${c} ELSE trim(${c}, ${literal(JS_WHITE_SPACE)}) END`;
