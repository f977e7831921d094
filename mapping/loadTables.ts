import type { Node } from 'yaml';
import type { ColumnSpec, TableSpec } from './spec';
import type { Yaml } from './yamlNodes';

const TABLE_OPTIONS = ['files', 'format', 'encoding', 'delimiter', 'quote', 'record_type', 'key', 'columns'] as const;
const COLUMN_OPTIONS = ['type', 'format', 'pence', 'implied_decimals', 'decimal_comma', 'sign_column', 'true', 'false', 'empty', 'check', 'start', 'length'] as const;
const TYPES = ['string', 'integer', 'decimal', 'date', 'datetime', 'boolean', 'json'] as const;
const ENCODINGS = { 'utf-8': 'utf-8', utf8: 'utf-8', 'windows-1252': 'windows-1252', cp1252: 'windows-1252', 'iso-8859-1': 'iso-8859-1', 'latin-1': 'iso-8859-1', latin1: 'iso-8859-1' } as const;
const DATE_FORMATS = ['dd/mm/yyyy', 'yyyymmdd', 'yyyy-mm-dd'];
const DATETIME_FORMATS = ['dd/mm/yyyy hh:mm', 'dd/mm/yyyy hh:mm:ss', 'yyyymmddhhmmss', 'iso'];

/** `tables:` of the mapping: each legacy table, where its files are, how they are read, its columns. */
export function loadTables(y: Yaml, node: Node | undefined): Map<string, TableSpec> {
  const tables = new Map<string, TableSpec>();
  for (const [name, t, line] of y.entries(node, 'tables')) {
    y.only(t, TABLE_OPTIONS, `table ${name}`);
    const format = y.str(y.get(t, 'format'), 'format') ?? 'csv';
    if (format !== 'csv' && format !== 'fixed') y.fail(y.get(t, 'format'), `table ${name}: format must be csv or fixed`);
    const encodingText = (y.str(y.get(t, 'encoding'), 'encoding') ?? 'utf-8').toLowerCase();
    const encoding = ENCODINGS[encodingText as keyof typeof ENCODINGS];
    if (!encoding) y.fail(y.get(t, 'encoding'), `table ${name}: encoding must be one of ${Object.keys(ENCODINGS).join(', ')}`);
    const files = y.str(y.get(t, 'files'), 'files');
    if (!files) y.fail(t, `table ${name}: files (a file name or glob under the extract folder) is required`);
    const delimiterText = y.str(y.get(t, 'delimiter'), 'delimiter') ?? ',';
    const delimiter = delimiterText === '\\t' || delimiterText === 'tab' ? '\t' : delimiterText;
    const columns = new Map<string, ColumnSpec>();
    for (const [col, c, colLine] of y.entries(y.get(t, 'columns'), `table ${name}: columns`)) columns.set(col, loadColumn(y, name, col, c, colLine, format === 'fixed'));
    const table: TableSpec = {
      name,
      line,
      files: files ?? '',
      format: format === 'fixed' ? 'fixed' : 'csv',
      encoding: encoding ?? 'utf-8',
      delimiter,
      quote: y.str(y.get(t, 'quote'), 'quote') ?? '"',
      key: y.strings(y.get(t, 'key'), 'key'),
      columns,
    };
    if (delimiter.length !== 1 || table.quote.length > 1) y.fail(t, `table ${name}: delimiter and quote are one character each`);
    const rt = y.get(t, 'record_type');
    if (rt) {
      const start = Number(y.value(y.get(rt, 'start')));
      const length = Number(y.value(y.get(rt, 'length')));
      const data = y.str(y.get(rt, 'data'), 'record_type.data');
      if (!(start >= 1 && length >= 1 && data)) y.fail(rt, `table ${name}: record_type needs start, length and data`);
      table.recordType = { start, length, data: data ?? '', header: y.str(y.get(rt, 'header'), 'header'), trailer: y.str(y.get(rt, 'trailer'), 'trailer') };
    }
    for (const k of table.key ?? []) if (!columns.has(k)) y.fail(y.get(t, 'key'), `table ${name}: key column ${k} is not one of its columns`);
    for (const c of columns.values()) {
      if (c.signColumn && !columns.has(c.signColumn)) y.problems.push({ line: c.line, detail: `table ${name}: sign_column ${c.signColumn} is not one of its columns` });
    }
    tables.set(name, table);
  }
  return tables;
}

function loadColumn(y: Yaml, table: string, name: string, c: Node, line: number, fixed: boolean): ColumnSpec {
  const what = `column ${table}.${name}`;
  // A column given as one word is its type; `{}` or nothing is a string.
  if (y.isScalar(c) || c === null || c === undefined) {
    const type = (y.str(c, what) ?? 'string') as ColumnSpec['type'];
    if (!TYPES.includes(type)) y.problems.push({ line, detail: `${what}: type must be one of ${TYPES.join(', ')}` });
    if (fixed) y.problems.push({ line, detail: `${what}: a fixed-width column needs start and length` });
    return { name, line, type, emptyIsNull: true };
  }
  y.only(c, COLUMN_OPTIONS, what);
  const type = (y.str(y.get(c, 'type'), 'type') ?? 'string') as ColumnSpec['type'];
  if (!TYPES.includes(type)) y.fail(y.get(c, 'type'), `${what}: type must be one of ${TYPES.join(', ')}`);
  const format = y.str(y.get(c, 'format'), 'format');
  if (type === 'date' && !DATE_FORMATS.includes(format ?? 'yyyy-mm-dd')) y.fail(y.get(c, 'format'), `${what}: a date format is one of ${DATE_FORMATS.join(', ')}`);
  if (type === 'datetime' && !DATETIME_FORMATS.includes(format ?? 'iso')) y.fail(y.get(c, 'format'), `${what}: a datetime format is one of ${DATETIME_FORMATS.join(', ')}`);
  const spec: ColumnSpec = {
    name,
    line,
    type,
    format,
    pence: y.value(y.get(c, 'pence')) === true,
    impliedDecimals: y.get(c, 'implied_decimals') ? Number(y.value(y.get(c, 'implied_decimals'))) : undefined,
    decimalComma: y.value(y.get(c, 'decimal_comma')) === true,
    signColumn: y.str(y.get(c, 'sign_column'), 'sign_column'),
    trueText: y.str(y.get(c, 'true'), 'true'),
    falseText: y.str(y.get(c, 'false'), 'false'),
    emptyIsNull: (y.str(y.get(c, 'empty'), 'empty') ?? 'null') === 'null',
    start: y.get(c, 'start') ? Number(y.value(y.get(c, 'start'))) : undefined,
    length: y.get(c, 'length') ? Number(y.value(y.get(c, 'length'))) : undefined,
  };
  if (fixed && !(Number(spec.start) >= 1 && Number(spec.length) >= 1)) y.problems.push({ line, detail: `${what}: a fixed-width column needs start and length (1-based)` });
  const check = y.get(c, 'check');
  if (check) {
    y.only(check, ['min', 'max', 'pattern', 'in'], `${what}: check`);
    const pattern = y.str(y.get(check, 'pattern'), 'pattern');
    let regex: RegExp | undefined;
    try {
      regex = pattern === undefined ? undefined : new RegExp(pattern);
    } catch {
      y.fail(y.get(check, 'pattern'), `${what}: check pattern is not a regular expression`);
    }
    const num = (k: string) => (y.get(check, k) === undefined ? undefined : Number(y.value(y.get(check, k))));
    spec.check = { min: num('min'), max: num('max'), pattern: regex, in: y.strings(y.get(check, 'in'), 'in') };
  }
  return spec;
}
