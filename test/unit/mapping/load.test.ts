import fs from 'node:fs';
import { MappingError, parseMapping } from '../../../mapping';

const EXAMPLE = fs.readFileSync(`${__dirname}/../../../examples/legacy-extract/mapping.yaml`, 'utf8');
const DIR = `${__dirname}/../../../examples/legacy-extract`;

function problems(text: string): { line: number; detail: string }[] {
  try {
    parseMapping(text, 'm.yaml', DIR);
  } catch (err) {
    if (err instanceof MappingError) return err.problems;
    throw err;
  }
  return [];
}

/** The 1-based line of the first occurrence of `needle` in the example mapping. */
const lineOf = (text: string, needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;

describe('loading a mapping', () => {
  it('loads the example mapping', () => {
    const m = parseMapping(EXAMPLE, 'm.yaml', DIR);
    expect(m.account.table).toBe('accounts');
    expect([...m.tables.keys()]).toEqual(['accounts', 'customers', 'meter_points', 'meters', 'registers', 'eacs', 'readings']);
  });

  it('names the line of an Account field that does not exist', () => {
    const text = EXAMPLE.replace('    billing_name: BILL_NAME', '    billing_nmae: BILL_NAME');
    expect(problems(text)).toEqual([{ line: lineOf(text, 'billing_nmae'), detail: expect.stringContaining('the Account has no such field') }]);
  });

  it('names the line of a rule that reads a column its table does not declare', () => {
    const text = EXAMPLE.replace('        email: EMAIL', '        email: E_MAIL');
    expect(problems(text)).toEqual([{ line: lineOf(text, 'email: E_MAIL'), detail: expect.stringContaining('table customers has no column E_MAIL') }]);
  });

  it('refuses a join that could give one child two parents', () => {
    // Meter points joined to supply addresses on the account alone: a property's meter points
    // would belong to every supply address of the account.
    const text = EXAMPLE.replace('          join: { ACC_NO: ACC_NO, PROP_ID: PROP_ID }', '          join: { ACC_NO: ACC_NO } # the account only');
    expect(problems(text)).toEqual([{ line: lineOf(text, '# the account only'), detail: expect.stringContaining('could make one meter_points row belong to two meter_points items') }]);
  });

  it('refuses a list rule on a value field, a misspelt option and a missing required field', () => {
    const text = EXAMPLE.replace('    billing_postcode: BILL_PC', '    billing_postcode: { colum: BILL_PC }').replace("    import_supplier: { const: DEMO_ENERGY }\n", '');
    const found = problems(text);
    expect(found.map((p) => p.line)).toEqual([lineOf(text, '  table: accounts'), lineOf(text, 'colum: BILL_PC')]);
    expect(found[0].detail).toContain('import_supplier: required by the Account');
    expect(found[1].detail).toContain('a rule is a column name or a map');
  });

  it('reports YAML syntax errors with their line', () => {
    expect(problems('version: 1\ntables:\n  a: [\n')[0].line).toBeGreaterThan(1);
  });
});
