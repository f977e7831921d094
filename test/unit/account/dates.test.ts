import { isIsoDate, isIsoDateTime } from '../../../account/dates';
import { errorsAfter } from './mutate';

describe('dates the store can hold', () => {
  it('takes years 0001 to 9999 and refuses year 0000, which PostgreSQL has not (found by the reconciliation edge cases)', async () => {
    expect(isIsoDate('0001-01-01')).toBe(true);
    expect(isIsoDate('9999-12-31')).toBe(true);
    expect(isIsoDate('0000-01-01')).toBe(false);
    expect(isIsoDateTime('0001-01-01T00:00:00Z')).toBe(true);
    expect(isIsoDateTime('0000-12-31T23:00:00Z')).toBe(false);
    expect(await errorsAfter((a) => (a.customers[0].date_of_birth = '0000-01-01'))).toEqual(['invalid_date@customers.0.date_of_birth']);
    expect(await errorsAfter((a) => (a.notes[0].created_at = '0000-06-01T00:00:00Z'))).toEqual(['invalid_datetime@notes.0.created_at']);
  });
});
