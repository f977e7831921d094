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
 * counted here, not by splitting lines; CRLF and LF both end a record. An empty last line is not a
 * record.
 */
export function parseCsvText(text: string, delimiter: string, quote: string): CsvParse {
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let field = '';
  let line = 1;
  let recordLine = 1;
  let quotedFrom = 0;
  let inQuotes = false;
  let fieldStart = true;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const ch = text[i];
    if (inQuotes) {
      // The run up to the next quote is taken as one slice: a field built a character at a time is
      // a rope of one node per character (a 20 KB cell of a ledger cost the heap gigabytes).
      const q = text.indexOf(quote, i);
      const end = q < 0 ? n : q;
      for (let k = text.indexOf('\n', i); k >= 0 && k < end; k = text.indexOf('\n', k + 1)) line++;
      field += text.slice(i, end);
      if (q < 0) {
        i = n;
        break;
      }
      i = q;
      if (text[i + 1] === quote) {
        field += quote;
        i++;
      } else inQuotes = false;
      continue;
    }
    if (ch === quote && quote !== '' && fieldStart) {
      inQuotes = true;
      quotedFrom = line;
      fieldStart = false;
    } else if (ch === delimiter) {
      fields.push(field);
      field = '';
      fieldStart = true;
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      fields.push(field);
      records.push({ fields, line: recordLine });
      fields = [];
      field = '';
      fieldStart = true;
      line++;
      recordLine = line;
    } else {
      let j = i + 1;
      while (j < n) {
        const c = text[j];
        if (c === delimiter || c === '\n' || c === '\r') break;
        j++;
      }
      field += text.slice(i, j);
      fieldStart = false;
      i = j - 1;
    }
  }
  if (inQuotes) return { records, error: { line: quotedFrom, detail: `unterminated quote: the quoted field opened on line ${quotedFrom} never closes` } };
  if (!fieldStart || fields.length > 0 || field !== '') {
    fields.push(field);
    records.push({ fields, line: recordLine });
  }
  return { records };
}
