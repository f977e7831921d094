import { convertValue } from '../../../mapping';
import type { ColumnSpec } from '../../../mapping/spec';

const col = (over: Partial<ColumnSpec>): ColumnSpec => ({ name: 'C', line: 1, type: 'string', emptyIsNull: true, ...over });
const conv = (over: Partial<ColumnSpec>, text: string, row: Record<string, string> = {}) => convertValue(col(over), text, row);

describe('legacy value conversions', () => {
  it('reads a JSON cell as JSON.parse does, and refuses what it refuses', () => {
    const texts = ['"plain"', '"say \\"hi\\""', '"tab\there"', '"\\u00e9"', '""', '"a"b"', '"unclosed', '18372.3', '-0', '1e5', '01', '+1', '.5', '1.', ' 12', 'true', 'false', 'null', 'True', '[1,"x"]', '{"a":null}'];
    for (const t of texts) {
      let expected: unknown;
      try {
        expected = { ok: true, value: JSON.parse(t) as unknown };
      } catch {
        expected = { ok: false };
      }
      const got = conv({ type: 'json' }, t);
      expect([t, got.ok ? got : { ok: false }]).toEqual([t, expected]);
    }
  });

  it('reads dates as dd/mm/yyyy and yyyymmdd and refuses dates that do not exist', () => {
    expect(conv({ type: 'date', format: 'dd/mm/yyyy' }, '1/3/2024')).toEqual({ ok: true, value: '2024-03-01' });
    expect(conv({ type: 'date', format: 'yyyymmdd' }, '20240229')).toEqual({ ok: true, value: '2024-02-29' });
    expect(conv({ type: 'date', format: 'dd/mm/yyyy' }, '31/02/2024').ok).toBe(false);
    expect(conv({ type: 'date', format: 'yyyymmdd' }, '2024-02-29').ok).toBe(false);
  });

  it('reads London wall-clock times with the offset London had then', () => {
    expect(conv({ type: 'datetime', format: 'dd/mm/yyyy hh:mm' }, '01/07/2024 09:30')).toEqual({ ok: true, value: '2024-07-01T09:30:00+01:00' });
    expect(conv({ type: 'datetime', format: 'dd/mm/yyyy hh:mm' }, '01/12/2024 09:30')).toEqual({ ok: true, value: '2024-12-01T09:30:00+00:00' });
  });

  it('turns pence into pounds exactly, with currency symbols, thousands separators and signs', () => {
    expect(conv({ type: 'decimal', pence: true }, '1999')).toEqual({ ok: true, value: '19.99' });
    expect(conv({ type: 'decimal', pence: true }, '£1,005')).toEqual({ ok: true, value: '10.05' });
    expect(conv({ type: 'decimal', pence: true }, '5')).toEqual({ ok: true, value: '0.05' });
    expect(conv({ type: 'decimal' }, '1,234.50DR')).toEqual({ ok: true, value: '-1234.50' });
    expect(conv({ type: 'decimal' }, '12.00 CR')).toEqual({ ok: true, value: '12.00' });
    expect(conv({ type: 'decimal', pence: true, signColumn: 'S' }, '250', { S: 'DR' })).toEqual({ ok: true, value: '-2.50' });
    expect(conv({ type: 'decimal', pence: true, signColumn: 'S' }, '250', { S: '?' }).ok).toBe(false);
    expect(conv({ type: 'decimal', decimalComma: true }, '1.234,5')).toEqual({ ok: true, value: '1234.5' });
    expect(conv({ type: 'decimal', impliedDecimals: 3 }, '0012345')).toEqual({ ok: true, value: '12.345' });
    expect(conv({ type: 'decimal' }, '12a').ok).toBe(false);
  });

  it('reads integers, Y/N flags and empties', () => {
    expect(conv({ type: 'integer' }, '007')).toEqual({ ok: true, value: 7 });
    expect(conv({ type: 'integer' }, '0')).toEqual({ ok: true, value: 0 });
    expect(conv({ type: 'decimal' }, '0012')).toEqual({ ok: true, value: '12' });
    expect(conv({ type: 'decimal' }, '000')).toEqual({ ok: true, value: '0' });
    expect(conv({ type: 'decimal', impliedDecimals: 2 }, '0012')).toEqual({ ok: true, value: '0.12' });
    expect(conv({ type: 'integer', signColumn: 'S' }, '12', { S: '-' })).toEqual({ ok: true, value: -12 });
    expect(conv({ type: 'integer' }, '7.5').ok).toBe(false);
    expect(conv({ type: 'boolean' }, 'y')).toEqual({ ok: true, value: true });
    expect(conv({ type: 'boolean', trueText: '1', falseText: '0' }, '0')).toEqual({ ok: true, value: false });
    expect(conv({ type: 'boolean' }, 'maybe').ok).toBe(false);
    expect(conv({ type: 'date' }, '  ')).toEqual({ ok: true, value: null });
  });
});
