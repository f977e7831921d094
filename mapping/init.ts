import { accountFieldCodes, fieldsUnder, type AccountField } from './accountFields';
import { profileExtract, type TableProfile } from './profile';

/** Most values of a value set written beside a field; the rest are counted. */
const MAX_VALUES = 12;

/**
 * Codes that check (nearly) every field, said once in the skeleton's header rather than on each
 * line: a value of the wrong JSON type, null where the field takes none, a text PostgreSQL cannot store.
 */
const EVERY_FIELD_CODES = new Set(['invalid', 'null', 'invalid_character']);

/**
 * `data-import map init`: a mapping to start from. Every Account field is there, commented out,
 * with its type, whether it is required, its value set and the error codes that check it; lists are written with the table,
 * join and order they need. Given an extract, `tables:` is filled from its files (columns, the
 * types and date formats seen), and each column with few distinct values gets a conversion table
 * pre-filled with the codes found, marked unconfirmed: a run refuses it until a person has
 * filled and confirmed it (docs/bulk-migration.md, "Starting a mapping").
 */
export function skeleton(extracts?: string): string {
  const out: string[] = [
    '# A mapping skeleton written by `data-import map init` (docs/bulk-migration.md, "From a legacy extract").',
    '# Uncomment the fields your extract holds; give each one rule. Required fields are marked.',
    "# Beside each field, the validator's error codes that can be raised at it (docs/spec/RULES.md); every field is also",
    '# checked for its JSON type (invalid; null where it takes none) and every text for characters that cannot be stored (invalid_character).',
    'version: 1',
    '',
    'tables:',
  ];
  const profiles = extracts ? profileExtract(extracts) : [];
  if (profiles.length === 0) out.push('  # accounts:', '  #   files: ACCOUNTS.CSV', '  #   encoding: windows-1252', '  #   key: ACC_NO', '  #   columns:', '  #     ACC_NO: string');
  for (const p of profiles) out.push(...tableLines(p));
  out.push('', 'account:', '  table: accounts  # the legacy table with one row per account; it needs a key', '  fields:');
  out.push(...fieldLines('', 0));
  return `${out.join('\n')}\n`;
}

function tableLines(p: TableProfile): string[] {
  const lines = [`  ${p.name}:`, `    files: ${p.file}`, `    encoding: ${p.encoding}`];
  if (p.delimiter !== ',') lines.push(`    delimiter: ${p.delimiter === '\t' ? 'tab' : `"${p.delimiter}"`}`);
  lines.push(`    # ${p.rows} rows`, '    columns:');
  for (const c of p.columns) {
    const decl = c.dateFormat ? `{ type: date, format: ${c.dateFormat} }` : c.integer ? 'integer' : 'string';
    lines.push(`      ${c.name}: ${decl}  # ${c.distinct} distinct, ${c.empty} empty`);
    if (c.codes) {
      lines.push(`      # codes of ${c.name} (rows each: ${c.codes.map(([code, n]) => `${code} ${n}`).join(', ')}), a conversion table to fill and confirm:`);
      lines.push(`      #   { map: ${c.name}, fallback: fail, unconfirmed: true, values: { ${c.codes.map(([code]) => `${JSON.stringify(code)}: null`).join(', ')} } }`);
    }
  }
  return lines;
}

function describe(path: string, f: AccountField): string {
  // A free-form value (the platform's consent `type`) has no type: any JSON value.
  const kind = f.kinds.has('list') ? 'list' : f.kinds.has('object') ? 'object' : f.types.join(' | ') || 'any JSON value';
  // A code as it is, anything else (an empty text, a number, a text with spaces or marks) as JSON.
  const values = f.values.filter((v) => v !== null).map((v) => (typeof v === 'string' && /^[A-Za-z0-9_.-]+$/.test(v) ? v : JSON.stringify(v)));
  const set = values.length === 0 ? '' : `; one of ${values.slice(0, MAX_VALUES).join(', ')}${values.length > MAX_VALUES ? ` … (${values.length} in all)` : ''}`;
  const codes = accountFieldCodes(path).filter((c) => !EVERY_FIELD_CODES.has(c));
  return `${kind}${f.required ? ', REQUIRED' : ''}${set}${codes.length > 0 ? `; checked by: ${codes.join(', ')}` : ''}`;
}

/**
 * The fields directly under `prefix` (`''`: the account's), each a commented line at `depth`
 * (two spaces a level, after the `# ` at the account's fields): removing `# ` leaves valid YAML.
 */
function fieldLines(prefix: string, depth: number): string[] {
  const at = (d: number, text: string) => `    # ${'  '.repeat(d)}${text}`;
  const lines: string[] = [];
  for (const { path: p, field: f, shape } of fieldsUnder(prefix)) {
    const name = p.slice(prefix.length);
    if (shape === 'list') {
      lines.push(at(depth, `${name}:  # ${describe(p, f)}`), at(depth + 1, 'table: TABLE'), at(depth + 1, 'join: { CHILD_COLUMN: PARENT_KEY_COLUMN }'), at(depth + 1, 'order: [COLUMN]'), at(depth + 1, 'fields:'));
      lines.push(...fieldLines(`${p}.*.`, depth + 2));
    } else if (shape === 'object') {
      lines.push(at(depth, `${name}:  # ${describe(p, f)}`), at(depth + 1, 'fields:'));
      lines.push(...fieldLines(`${p}.`, depth + 2));
    } else lines.push(at(depth, `${name}: COLUMN  # ${describe(p, f)}`));
  }
  return lines;
}
