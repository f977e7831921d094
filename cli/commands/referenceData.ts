// long-file (355 lines): one command group whose six kinds share one loader, one row schema and one printer.
import fs from 'node:fs';
import { Argument, Command, Option } from 'commander';
import { Type, Static } from '@sinclair/typebox';
import type { ErrorObject } from 'ajv';
import { ajv } from '../../account/ajv';
import { REFERENCE_DATA_KINDS, ReferenceDataKind, ReferenceDataRow } from '../../account/referenceData';
import { deleteReferenceData, listReferenceData, upsertReferenceData } from '../../account/referenceDataStore';
import { CliError } from '../errors';
import { print, printErr, withDb } from '../context';
import { json, table, withExamples } from '../format';

/**
 * `data-import reference-data`: the operator-managed reference data of the Account rules
 * (tariffs, TPRs, market participants, PSR needs codes, campaigns, dunning paths, reference
 * namespaces, debt collection agencies). Validators notice changes through ReferenceDataCache.
 */

const FUELS = ['ELECTRICITY', 'GAS'] as const;

const RowSchema = Type.Object(
  {
    kind: Type.Unsafe<ReferenceDataKind>({ type: 'string', enum: [...REFERENCE_DATA_KINDS] }),
    // 128 is the column width; surrounding blanks would make a code nobody can match.
    code: Type.String({ minLength: 1, maxLength: 128, pattern: '^\\S(.*\\S)?$' }),
    fuel: Type.Optional(Type.Unsafe<(typeof FUELS)[number] | null>({ type: ['string', 'null'], enum: [...FUELS, null] })),
    description: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  },
  { $id: 'https://data-import/cli/reference-data-row.json', additionalProperties: false },
);
type Row = Static<typeof RowSchema>;

// Reference data is account input: the account area's instance (same options) compiles it.
const validateRow = ajv.compile<Row>(RowSchema);

/** One row of the file with the line it starts on. */
interface SourceRow {
  line: number;
  value: unknown;
}

export interface BadRow {
  line: number;
  problem: string;
}

/** CSV (RFC 4180: quoted fields, "" escapes, CRLF) into records, each with the line it starts on. */
export function parseCsv(text: string): { line: number; cells: string[] }[] {
  const records: { line: number; cells: string[] }[] = [];
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  let line = 1;
  let start = 1;
  let cellStarted = false;
  const endRecord = () => {
    cells.push(cell);
    // A blank line is not a record.
    if (!(cells.length === 1 && cells[0]!.trim() === '' && !cellStarted)) records.push({ line: start, cells });
    cells = [];
    cell = '';
    cellStarted = false;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else {
        if (c === '\n') line++;
        cell += c;
      }
      continue;
    }
    if (c === '"') {
      quoted = true;
      cellStarted = true;
    } else if (c === ',') {
      cells.push(cell);
      cell = '';
      cellStarted = true;
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      endRecord();
      line++;
      start = line;
    } else cell += c;
  }
  if (quoted) throw new CliError(`line ${start}: a quoted field is not closed`);
  if (cell !== '' || cells.length > 0 || cellStarted) endRecord();
  return records;
}

const CSV_COLUMNS = ['kind', 'code', 'fuel', 'description'] as const;

function csvRows(text: string): SourceRow[] {
  const records = parseCsv(text);
  if (records.length === 0) return [];
  const [header, ...body] = records;
  const columns = header!.cells.map((c) => c.trim().toLowerCase());
  const unknown = columns.filter((c) => !(CSV_COLUMNS as readonly string[]).includes(c));
  if (unknown.length > 0 || new Set(columns).size !== columns.length || !columns.includes('code')) {
    throw new CliError(`line ${header!.line}: the CSV header must name the columns kind, code, fuel, description (code required, each at most once); got ${header!.cells.join(',')}`);
  }
  return body.map((r) => {
    if (r.cells.length !== columns.length) {
      return { line: r.line, value: { __cells: `expected ${columns.length} fields, got ${r.cells.length}` } };
    }
    const value: Record<string, string> = {};
    // Empty cells are absent values (fuel, description); cells are trimmed, as spreadsheets pad them.
    columns.forEach((col, i) => {
      const v = r.cells[i]!.trim();
      if (v !== '') value[col] = v;
    });
    return { line: r.line, value };
  });
}

/** The line on which each element of a top-level JSON array starts (the text is valid JSON). */
export function jsonArrayElementLines(text: string): number[] {
  const lines: number[] = [];
  let line = 1;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let expectingElement = false;
  for (const c of text) {
    if (c === '\n') line++;
    if (inString) {
      if (escaped) escaped = false;
      else if (c === '\\') escaped = true;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r' || c === '\n') continue;
    if (depth === 1 && expectingElement && c !== ']') {
      lines.push(line);
      expectingElement = false;
    }
    if (c === '"') inString = true;
    else if (c === '[' || c === '{') {
      depth++;
      if (depth === 1) expectingElement = true;
    } else if (c === ']' || c === '}') depth--;
    else if (c === ',' && depth === 1) expectingElement = true;
  }
  return lines;
}

function jsonRows(text: string): SourceRow[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new CliError(`not valid JSON: ${(err as Error).message}`);
  }
  if (!Array.isArray(parsed)) throw new CliError('a JSON file must hold an array of {kind, code, fuel?, description?} rows');
  const lines = jsonArrayElementLines(text);
  return parsed.map((value, i) => ({ line: lines[i] ?? 0, value }));
}

function describeAjvError(e: ErrorObject, value: Record<string, unknown>): string {
  const field = e.instancePath.replace(/^\//, '');
  switch (e.keyword) {
    case 'additionalProperties':
      return `unknown field "${(e.params as { additionalProperty: string }).additionalProperty}"`;
    case 'required':
      return `missing ${(e.params as { missingProperty: string }).missingProperty}`;
    case 'enum':
      return `${field} ${JSON.stringify(value[field])} is not one of ${(e.params as { allowedValues: unknown[] }).allowedValues.filter((v) => v !== null).join(', ')}`;
    case 'pattern':
      return `${field} must not start or end with blanks`;
    default:
      return `${field || 'row'} ${e.message ?? 'is invalid'}`;
  }
}

/**
 * Reads the rows of a reference data file (JSON array or CSV) and checks every one; `kind`, when
 * given, is the kind of rows that name none and the only kind allowed. Returns the rows, or every
 * bad row with its line: a file is loaded whole or not at all.
 */
export function readReferenceDataRows(text: string, kind?: ReferenceDataKind): { rows: ReferenceDataRow[]; bad: BadRow[] } {
  const body = text.replace(/^\uFEFF/, '');
  const source = body.trimStart().startsWith('[') ? jsonRows(body) : csvRows(body);
  const rows: ReferenceDataRow[] = [];
  const bad: BadRow[] = [];
  const seen = new Map<string, number>();
  for (const { line, value } of source) {
    if (value && typeof value === 'object' && '__cells' in value) {
      bad.push({ line, problem: String((value as { __cells: string }).__cells) });
      continue;
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) {
      bad.push({ line, problem: 'expected an object {kind, code, fuel?, description?}' });
      continue;
    }
    const candidate: Record<string, unknown> = { ...(value as Record<string, unknown>) };
    if (kind !== undefined && candidate.kind === undefined) candidate.kind = kind;
    if (!validateRow(candidate)) {
      bad.push({ line, problem: validateRow.errors!.map((e) => describeAjvError(e, candidate)).join('; ') });
      continue;
    }
    const row = candidate as Row;
    if (kind !== undefined && row.kind !== kind) {
      bad.push({ line, problem: `kind ${row.kind} is not the --kind ${kind}` });
      continue;
    }
    // referenceData.ts: only a tariff belongs to one fuel.
    if (row.fuel && row.kind !== 'tariff_code') {
      bad.push({ line, problem: `fuel is only for tariff_code rows, not ${row.kind}` });
      continue;
    }
    // One INSERT ... ON CONFLICT cannot touch the same row twice; a repeat is a mistake anyway.
    const key = `${row.kind}\u0000${row.code}\u0000${row.fuel ?? ''}`;
    const first = seen.get(key);
    if (first !== undefined) {
      bad.push({ line, problem: `repeats ${row.kind} ${row.code}${row.fuel ? ` (${row.fuel})` : ''} of line ${first}` });
      continue;
    }
    seen.set(key, line);
    rows.push({ kind: row.kind, code: row.code, fuel: row.fuel ?? null, description: row.description ?? null });
  }
  return { rows, bad };
}

const rowKey = (r: ReferenceDataRow) => `${r.kind}\u0000${r.code}\u0000${r.fuel ?? ''}`;

// At most this many bad rows are listed; the count says how many more there were.
const MAX_LISTED = 50;

interface LoadOptions {
  kind?: ReferenceDataKind;
  replace?: boolean;
  dryRun?: boolean;
}

async function load(file: string, opts: LoadOptions): Promise<void> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const { rows, bad } = readReferenceDataRows(text, opts.kind);
  if (bad.length > 0) {
    for (const b of bad.slice(0, MAX_LISTED)) printErr(`${file}:${b.line}: ${b.problem}`);
    if (bad.length > MAX_LISTED) printErr(`... and ${bad.length - MAX_LISTED} more bad rows`);
    throw new CliError(`${bad.length} bad row${bad.length === 1 ? '' : 's'} in ${file}; nothing was loaded`);
  }
  if (rows.length === 0 && !(opts.replace && opts.kind)) {
    throw new CliError(`${file} holds no rows (to remove every row of a kind, use --replace --kind <kind> with an empty file)`);
  }
  const kinds = opts.kind ? [opts.kind] : [...new Set(rows.map((r) => r.kind))];

  await withDb(async (db) => {
    const summary = await db.transaction(async (trx) => {
      const existing = (await Promise.all(kinds.map((k) => listReferenceData(trx, k)))).flat();
      const existingKeys = new Set(existing.map(rowKey));
      const newKeys = new Set(rows.map(rowKey));
      let removed = 0;
      if (opts.replace) {
        // deleteReferenceData removes a code with all its fuels; the upsert below puts back the
        // fuels the file still names.
        const stale = new Map<string, ReferenceDataRow>();
        for (const r of existing) if (!newKeys.has(rowKey(r))) stale.set(`${r.kind}\u0000${r.code}`, r);
        for (const r of stale.values()) await deleteReferenceData(trx, r.kind, r.code);
        removed = existing.filter((r) => !newKeys.has(rowKey(r))).length;
      }
      await upsertReferenceData(trx, rows);
      const added = rows.filter((r) => !existingKeys.has(rowKey(r))).length;
      const summary = { added, updated: rows.length - added, removed };
      // --dry-run: the same work, rolled back (a throw rolls the transaction back), so it reports
      // exactly what a load would do.
      if (opts.dryRun) throw new DryRun(summary);
      return summary;
    }).catch((err) => {
      if (err instanceof DryRun) return err.summary;
      throw err;
    });
    const verb = opts.dryRun ? 'Would load' : 'Loaded';
    print(
      `${verb} ${rows.length} reference data row${rows.length === 1 ? '' : 's'} of ${kinds.join(', ')} from ${file}: ` +
        `${summary.added} new, ${summary.updated} updated${opts.replace ? `, ${summary.removed} removed` : ''}.`,
    );
  });
}

class DryRun extends Error {
  constructor(readonly summary: { added: number; updated: number; removed: number }) {
    super('dry run');
  }
}

const kindOption = (description: string) => new Option('--kind <kind>', description).choices(REFERENCE_DATA_KINDS);

export function register(program: Command): void {
  const group = program
    .command('reference-data')
    .description(`Load and list the reference data the account rules check against (kinds: ${REFERENCE_DATA_KINDS.join(', ')}).`);
  withExamples(group, ['data-import reference-data list --kind tariff_code', 'data-import reference-data load tariffs.csv --kind tariff_code --replace']);

  withExamples(
    group
      .command('load')
      .description(
        'Load reference data rows from a file: a JSON array of {kind, code, fuel?, description?} objects, or CSV with a header ' +
          'naming the columns kind, code, fuel, description. fuel (ELECTRICITY or GAS) is only for tariff_code; a tariff without one counts for both fuels. ' +
          'Existing rows get the new description. Every row is checked first: if any is bad, each bad row is reported with its line and nothing is loaded.',
      )
      .argument('<file>', 'the JSON or CSV file (JSON when it starts with "[")')
      .addOption(kindOption('the kind of every row: rows may leave kind out, a row of another kind is an error, and --replace replaces this kind'))
      .option('--replace', 'replace all rows of the kind(s) in the file (or of --kind) with the file, in one transaction: rows the file does not name are removed')
      .option('--dry-run', 'check the file and report what would change, without changing anything'),
    [
      'data-import reference-data load reference.json',
      'data-import reference-data load tariffs.csv --kind tariff_code --replace',
      'data-import reference-data load campaigns.csv --kind campaign --dry-run',
    ],
  ).action(async (file: string, opts: LoadOptions) => {
    await load(file, opts);
  });

  withExamples(
    group
      .command('list')
      .description('List reference data rows, by kind and code.')
      .addOption(kindOption('only rows of this kind'))
      .option('--json', 'print a JSON array of {kind, code, fuel, description} (the format load reads)'),
    ['data-import reference-data list', 'data-import reference-data list --kind tpr', 'data-import reference-data list --kind campaign --json > campaigns.json'],
  ).action(async (opts: { kind?: ReferenceDataKind; json?: boolean }) => {
    await withDb(async (db) => {
      const rows = await listReferenceData(db, opts.kind);
      if (opts.json) return print(json(rows));
      print(table(['KIND', 'CODE', 'FUEL', 'DESCRIPTION'], rows.map((r) => [r.kind, r.code, r.fuel, r.description]), '(no reference data)'));
    });
  });

  withExamples(
    group
      .command('remove')
      .description('Remove one code of a kind (every fuel of a tariff code). Accounts already imported are not affected; new ones using the code fail validation.')
      .addArgument(new Argument('<kind>', 'the kind of reference data').choices(REFERENCE_DATA_KINDS))
      .argument('<code>', 'the code to remove'),
    ['data-import reference-data remove campaign winter-support-2026'],
  ).action(async (kind: ReferenceDataKind, code: string) => {
    await withDb(async (db) => {
      const n = await deleteReferenceData(db, kind, code);
      if (n === 0) throw new CliError(`no ${kind} ${code} in the reference data`);
      print(`Removed ${kind} ${code} (${n} row${n === 1 ? '' : 's'}).`);
    });
  });
}
