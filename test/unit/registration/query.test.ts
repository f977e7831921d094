import { parseRegistrationQuery } from '../../../registration/query';

describe('the send-registration-flows query', () => {
  it('takes no date as the earliest valid date', () => {
    expect(parseRegistrationQuery({})).toEqual({ ok: true, supplyStartDate: null });
  });

  it('takes a real YYYY-MM-DD date', () => {
    expect(parseRegistrationQuery({ supply_start_date: '2026-12-01' })).toEqual({ ok: true, supplyStartDate: '2026-12-01' });
  });

  it.each([['2026-02-30'], ['2026-12-1'], ['01/12/2026'], [''], ['2026-12-01T00:00:00Z']])('refuses %j with invalid_date', (v) => {
    expect(parseRegistrationQuery({ supply_start_date: v })).toEqual({
      ok: false,
      errors: [{ detail: expect.any(String), code: 'invalid_date', attr: 'supply_start_date' }],
    });
  });

  it('refuses a repeated supply_start_date with invalid_date', () => {
    expect(parseRegistrationQuery({ supply_start_date: ['2026-12-01', '2026-12-02'] })).toMatchObject({
      ok: false,
      errors: [{ code: 'invalid_date', attr: 'supply_start_date' }],
    });
  });

  it('refuses unknown parameters with unknown_field, reporting every issue', () => {
    expect(parseRegistrationQuery({ supply_start: '2026-12-01', supply_start_date: 'x' })).toEqual({
      ok: false,
      errors: [
        { detail: expect.any(String), code: 'unknown_field', attr: 'supply_start' },
        { detail: expect.any(String), code: 'invalid_date', attr: 'supply_start_date' },
      ],
    });
  });
});
