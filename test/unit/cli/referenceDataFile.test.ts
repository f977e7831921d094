import { jsonArrayElementLines, parseCsv, readReferenceDataRows } from '../../../cli/commands/referenceData';
import { CliError } from '../../../cli/errors';

describe('parseCsv', () => {
  it('reads quoted fields with commas, doubled quotes and line breaks, numbering records by their first line', () => {
    const text = 'kind,code,fuel,description\r\ntpr,00001,,"Standard, all day"\n\ncampaign,c1,,"say ""hi""\nover two lines"\ntpr,00002,,Day\n';
    expect(parseCsv(text)).toEqual([
      { line: 1, cells: ['kind', 'code', 'fuel', 'description'] },
      { line: 2, cells: ['tpr', '00001', '', 'Standard, all day'] },
      { line: 4, cells: ['campaign', 'c1', '', 'say "hi"\nover two lines'] },
      { line: 6, cells: ['tpr', '00002', '', 'Day'] },
    ]);
  });

  it('reads a last record without a final line break', () => {
    expect(parseCsv('code\nx')).toEqual([
      { line: 1, cells: ['code'] },
      { line: 2, cells: ['x'] },
    ]);
  });

  it('rejects an unclosed quoted field with the line it starts on', () => {
    expect(() => parseCsv('kind,code\ntpr,"00001\n')).toThrow(CliError);
    expect(() => parseCsv('kind,code\ntpr,"00001\n')).toThrow(/line 2/);
  });
});

describe('jsonArrayElementLines', () => {
  it('gives the line each top-level element starts on, ignoring brackets and commas inside strings and objects', () => {
    const text = '[\n  {"kind": "tpr", "code": "a,[b]"},\n\n  {"kind": "campaign",\n   "code": "x"}, {"code": "y"}\n]';
    expect(jsonArrayElementLines(text)).toEqual([2, 4, 5]);
  });

  it('gives no lines for an empty array', () => {
    expect(jsonArrayElementLines('[ ]')).toEqual([]);
  });
});

describe('readReferenceDataRows', () => {
  it('reads CSV rows with empty cells as absent values', () => {
    const { rows, bad } = readReferenceDataRows('kind,code,fuel,description\ntariff_code,E-1,ELECTRICITY,Tariff one\ntpr, 00009 ,,\n');
    expect(bad).toEqual([]);
    expect(rows).toEqual([
      { kind: 'tariff_code', code: 'E-1', fuel: 'ELECTRICITY', description: 'Tariff one' },
      { kind: 'tpr', code: '00009', fuel: null, description: null },
    ]);
  });

  it('takes the kind from --kind when the file has no kind column', () => {
    const { rows, bad } = readReferenceDataRows('code,description\nspring-2027,Spring\n', 'campaign');
    expect(bad).toEqual([]);
    expect(rows).toEqual([{ kind: 'campaign', code: 'spring-2027', fuel: null, description: 'Spring' }]);
  });

  it('reports every bad row of a JSON file with its line', () => {
    const text = [
      '[',
      '  {"kind": "tpr", "code": "00001"},',
      '  {"kind": "tarrif_code", "code": "E-1"},',
      '  {"kind": "tariff_code", "code": "E-2", "fuel": "DIESEL"},',
      '  {"kind": "campaign", "code": "c", "fuel": "GAS"},',
      '  {"kind": "tpr", "code": "00001"},',
      '  {"kind": "tpr", "code": ""},',
      '  {"kind": "tpr", "code": "x", "colour": "red"},',
      '  "tpr"',
      ']',
    ].join('\n');
    const { bad } = readReferenceDataRows(text);
    expect(bad.map((b) => b.line)).toEqual([3, 4, 5, 6, 7, 8, 9]);
    expect(bad[0]!.problem).toContain('tarrif_code');
    expect(bad[1]!.problem).toContain('DIESEL');
    expect(bad[3]!.problem).toContain('line 2');
    expect(bad[5]!.problem).toContain('colour');
  });

  it('reports a CSV row of another kind than --kind and a row with the wrong number of fields', () => {
    const { bad } = readReferenceDataRows('kind,code\ntpr,00001\ncampaign,c1\ntpr\n', 'tpr');
    expect(bad.map((b) => b.line)).toEqual([3, 4]);
    expect(bad[0]!.problem).toContain('campaign');
  });

  it('rejects a CSV header naming an unknown column', () => {
    expect(() => readReferenceDataRows('kind,code,colour\ntpr,1,red\n')).toThrow(CliError);
  });
});
