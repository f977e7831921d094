import { InvalidArgumentError } from 'commander';
import { integerIn, table } from '../../../cli/format';

describe('integerIn', () => {
  const parse = integerIn(0, 365);

  it.each(['0', '7', '365', ' 12 '])('accepts %j', (v) => {
    expect(parse(v)).toBe(Number(v));
  });

  it.each(['1.5', '1e2', '', 'abc', '12abc', '-1', '366'])('rejects %j', (v) => {
    expect(() => parse(v)).toThrow(InvalidArgumentError);
  });
});

describe('table', () => {
  it('aligns columns under their headers and shows missing values as -', () => {
    expect(table(['CODE', 'STATUS', 'N'], [['A', 'Ongoing', 1], ['LONGER_CODE', null, true]])).toBe(
      ['CODE         STATUS   N', '-----------  -------  ---', 'A            Ongoing  1', 'LONGER_CODE  -        yes'].join('\n'),
    );
  });

  it('prints the empty text when there are no rows', () => {
    expect(table(['CODE'], [], '(no import suppliers)')).toBe('(no import suppliers)');
  });
});
