import fs from 'node:fs';
import path from 'node:path';
import { parseCsvText } from './csv';
import { decode } from './extract';

export interface ColumnProfile {
  name: string;
  distinct: number;
  empty: number;
  integer: boolean;
  dateFormat?: string;
  /** The codes seen with their row counts, when the column has few distinct values. */
  codes?: [string, number][];
}

export interface TableProfile {
  name: string;
  file: string;
  encoding: 'utf-8' | 'windows-1252';
  delimiter: string;
  rows: number;
  columns: ColumnProfile[];
}

/** A column with at most this many distinct values (and half as many as rows) is taken for a code column. */
const MAX_CODES = 20;
const DATE_FORMATS: [string, RegExp][] = [
  ['dd/mm/yyyy', /^\d{1,2}\/\d{1,2}\/\d{4}$/],
  ['yyyy-mm-dd', /^\d{4}-\d{2}-\d{2}$/],
  ['yyyymmdd', /^(19|20)\d{2}(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])$/],
];

/**
 * What `map init` learns from an extract's delimited files: per file, its encoding (UTF-8 when it
 * decodes as such, else Windows-1252), delimiter (the commonest of , ; tab | in the header), and per
 * column the distinct values, empties, whether it holds whole numbers or dates (and in which format).
 */
export function profileExtract(dir: string): TableProfile[] {
  const files = fs.readdirSync(dir).filter((f) => /\.(csv|tsv|txt)$/i.test(f)).sort();
  return files.flatMap((file) => {
    const bytes = fs.readFileSync(path.join(dir, file));
    const utf8 = decode(bytes, 'utf-8', file);
    const encoding = 'text' in utf8 ? 'utf-8' : 'windows-1252';
    const decoded = 'text' in utf8 ? utf8 : decode(bytes, 'windows-1252', file);
    if (!('text' in decoded) || decoded.text.trim() === '') return [];
    const firstLine = decoded.text.split(/\r?\n/, 1)[0];
    const delimiter = [',', ';', '\t', '|'].map((d) => [d, firstLine.split(d).length] as const).sort((a, b) => b[1] - a[1])[0][0];
    const [head, ...records] = parseCsvText(decoded.text, delimiter, '"').records;
    const columns = head.fields.map((name, i) => {
      const counts = new Map<string, number>();
      let empty = 0;
      for (const r of records) {
        const v = (r.fields[i] ?? '').trim();
        if (v === '') empty++;
        else counts.set(v, (counts.get(v) ?? 0) + 1);
      }
      const values = [...counts.keys()];
      const col: ColumnProfile = { name: name.trim(), distinct: values.length, empty, integer: values.length > 0 && values.every((v) => /^-?\d+$/.test(v)) };
      const date = DATE_FORMATS.find(([, re]) => values.length > 0 && values.every((v) => re.test(v)));
      if (date) col.dateFormat = date[0];
      if (!date && values.length > 0 && values.length <= MAX_CODES && values.length <= Math.max(2, records.length / 2)) col.codes = [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
      return col;
    });
    return [{ name: path.basename(file, path.extname(file)).toLowerCase(), file, encoding, delimiter, rows: records.length, columns }];
  });
}
