import { addCalendarDays, addWorkingDays, bankHolidays, isWorkingDay } from '../../../registration/workingDays';

describe('the England and Wales working-day calendar', () => {
  it('knows the 2026 bank holidays of gov.uk, with the Boxing Day substitute', () => {
    expect([...bankHolidays(2026)].sort()).toEqual([
      '2026-01-01',
      '2026-04-03', // Good Friday
      '2026-04-06', // Easter Monday
      '2026-05-04', // early May
      '2026-05-25', // spring
      '2026-08-31', // summer
      '2026-12-25',
      '2026-12-26', // a Saturday: substituted on the 28th
      '2026-12-28',
    ]);
  });

  it('knows the 2027 substitutes for a Christmas on a Saturday', () => {
    for (const d of ['2027-03-26', '2027-03-29', '2027-05-03', '2027-05-31', '2027-08-30', '2027-12-27', '2027-12-28']) {
      expect({ d, working: isWorkingDay(d) }).toEqual({ d, working: false });
    }
  });

  it('knows one-off bank holidays such as the 2023 coronation and the 2020 VE day move', () => {
    expect(isWorkingDay('2023-05-08')).toBe(false);
    expect(isWorkingDay('2020-05-08')).toBe(false);
    expect(isWorkingDay('2020-05-04')).toBe(true);
  });

  it('treats Saturdays and Sundays as non-working days', () => {
    expect(isWorkingDay('2026-11-21')).toBe(false); // Saturday
    expect(isWorkingDay('2026-11-22')).toBe(false); // Sunday
    expect(isWorkingDay('2026-11-23')).toBe(true);
  });

  it.each([
    ['2026-12-24', 1, '2026-12-29'], // 25 Christmas, 26–27 weekend, 28 Boxing Day substitute
    ['2026-12-23', 1, '2026-12-24'],
    ['2026-12-23', 2, '2026-12-29'],
    ['2026-11-20', 1, '2026-11-23'], // Friday → Monday
    ['2026-11-21', 1, '2026-11-23'], // Saturday → Monday
    ['2026-11-21', 0, '2026-11-21'],
    ['2026-04-02', 1, '2026-04-07'], // Good Friday and Easter Monday
    ['2026-05-01', 1, '2026-05-05'], // early May bank holiday
    ['2026-05-22', 1, '2026-05-26'], // spring bank holiday
    ['2026-08-28', 1, '2026-09-01'], // summer bank holiday
    ['2026-12-31', 1, '2027-01-04'], // New Year's Day, then a weekend
    ['2027-12-24', 1, '2027-12-29'], // both Christmas substitutes
    ['2026-11-23', 5, '2026-11-30'],
  ])('%s + %i working days is %s', (from, days, expected) => {
    expect(addWorkingDays(from, days)).toBe(expected);
  });

  it('refuses a negative or fractional number of working days', () => {
    expect(() => addWorkingDays('2026-11-23', -1)).toThrow(RangeError);
    expect(() => addWorkingDays('2026-11-23', 1.5)).toThrow(RangeError);
  });

  it('adds calendar days across month and year ends', () => {
    expect(addCalendarDays('2026-11-21', 28)).toBe('2026-12-19');
    expect(addCalendarDays('2026-12-20', 28)).toBe('2027-01-17');
    expect(addCalendarDays('2028-02-28', 1)).toBe('2028-02-29');
  });
});
