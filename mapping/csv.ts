/** One record of a delimited file and the physical line (1-based) it starts on. */
export interface CsvRecord {
  fields: string[];
  line: number;
}

export interface CsvParse {
  records: CsvRecord[];
  /** The text cannot be read past this point (an unterminated quote): nothing after it is trusted. */
  error?: { line: number; detail: string };
}

/**
 * RFC 4180 with the delimiter and quote of the table: a quoted field may hold the delimiter, a
 * doubled quote and line breaks (a legacy address over three lines), so a record's physical line is
 * counted here, not by splitting lines; CRLF, LF and a lone CR each end a record. An empty last line
 * is not a record.
 */
export function parseCsvText(text: string, delimiter: string, quote: string): CsvParse {
  const records: CsvRecord[] = [];
  const reader = new CsvReader(delimiter, quote, (fields, line) => records.push({ fields, line }));
  const error = reader.push(text, true);
  return error ? { records, error } : { records };
}

const NL = 10;

function indexOr(text: string, s: string, from: number, none: number): number {
  const i = text.indexOf(s, from);
  return i < 0 ? none : i;
}
const CR = 13;

/**
 * The same reading fed a file piece by piece (mapping/extract.ts streams a table's files): each
 * complete record goes to `onRecord` as it is read; a record cut by the end of a piece waits for the
 * next. Fields are slices of the text, never built a character at a time: a line with no quote and
 * no lone CR is split natively, a quoted field is one slice with its doubled quotes replaced once.
 */
export class CsvReader {
  private tail = '';
  private line = 1;
  private readonly q: number;
  private readonly qq: string;
  private readonly d: number;

  constructor(
    private readonly delimiter: string,
    private readonly quote: string,
    private readonly onRecord: (fields: string[], line: number) => void,
  ) {
    this.q = quote === '' ? -1 : quote.charCodeAt(0);
    this.qq = quote + quote;
    this.d = delimiter.charCodeAt(0);
  }

  /** The next piece of the text (`final`: the last one). An unterminated quote is returned as an error. */
  push(piece: string, final: boolean): { line: number; detail: string } | undefined {
    const text = this.tail === '' ? piece : this.tail + piece;
    this.tail = '';
    const n = text.length;
    const { delimiter, quote } = this;
    let pos = 0;
    // The next CR and quote at or after pos (n: none), searched again only once passed: a search
    // per record from pos would scan to the end of the text each time in a file with none.
    let cr = -1;
    let qi = -1;
    while (pos < n) {
      // The common record: no quote, no lone CR before its LF: split natively.
      const nl = text.indexOf('\n', pos);
      if (nl >= 0) {
        const end = nl - 1 >= pos && text.charCodeAt(nl - 1) === CR ? nl - 1 : nl;
        if (cr < pos) cr = indexOr(text, '\r', pos, n);
        if (qi < pos) qi = this.q < 0 ? n : indexOr(text, quote, pos, n);
        if (cr >= end && qi >= end) {
          this.onRecord(text.slice(pos, end).split(delimiter), this.line);
          this.line++;
          pos = nl + 1;
          continue;
        }
      }
      const r = this.record(text, pos, final);
      if (r === null) {
        this.tail = text.slice(pos);
        return undefined;
      }
      if ('error' in r) return r.error;
      pos = r.next;
    }
    return undefined;
  }

  /**
   * One record from `pos` read field by field; null when the text ends before the record does (more
   * is to come), the error of an unterminated quote at the end of the last piece.
   */
  private record(text: string, pos: number, final: boolean): { next: number } | { error: { line: number; detail: string } } | null {
    const n = text.length;
    const fields: string[] = [];
    const recordLine = this.line;
    let line = this.line;
    let i = pos;
    for (;;) {
      // One field from i.
      let field = '';
      if (this.q >= 0 && text.charCodeAt(i) === this.q) {
        const start = i + 1;
        let k = start;
        let doubled = false;
        let close = -1;
        for (;;) {
          const qi = text.indexOf(this.quote, k);
          if (qi < 0 || (qi === n - 1 && !final)) break;
          if (text.charCodeAt(qi + 1) === this.q) {
            doubled = true;
            k = qi + 2;
            continue;
          }
          close = qi;
          break;
        }
        if (close < 0) {
          if (!final) return null;
          return { error: { line, detail: `unterminated quote: the quoted field opened on line ${line} never closes` } };
        }
        for (let b = text.indexOf('\n', start); b >= 0 && b < close; b = text.indexOf('\n', b + 1)) line++;
        field = text.slice(start, close);
        if (doubled) field = field.replaceAll(this.qq, this.quote);
        i = close + 1;
      }
      // The unquoted run up to the delimiter or the end of the line (after a closing quote too: its
      // characters, quotes included, are the field's).
      let j = i;
      while (j < n) {
        const c = text.charCodeAt(j);
        if (c === this.d || c === NL || c === CR) break;
        j++;
      }
      if (j > i) field += text.slice(i, j);
      fields.push(field);
      if (j >= n) {
        if (!final) return null;
        this.onRecord(fields, recordLine);
        this.line = line;
        return { next: n };
      }
      const c = text.charCodeAt(j);
      if (c === this.d) {
        i = j + 1;
        if (i >= n) {
          // A delimiter last in the text: an empty last field.
          if (!final) return null;
          fields.push('');
          this.onRecord(fields, recordLine);
          this.line = line;
          return { next: n };
        }
        continue;
      }
      // CR, CRLF or LF: the record ends. A CR last in a piece may be the first half of a CRLF.
      if (c === CR && j === n - 1 && !final) return null;
      this.onRecord(fields, recordLine);
      this.line = line + 1;
      return { next: c === CR && text.charCodeAt(j + 1) === NL ? j + 2 : j + 1 };
    }
  }
}
