import {
  decideRegistration,
  earliestFor,
  MeterPointForRegistration,
  registrationWindow,
  REGISTRATION_HORIZON_DAYS,
} from '../../../registration/eligibility';

const mp = (over: Partial<MeterPointForRegistration> = {}): MeterPointForRegistration => ({
  id: 7,
  identifier: '2300111122226',
  supplyType: 'ELECTRICITY',
  mpid: 'MPMP',
  supplyStartDate: '2022-11-01',
  etInProgress: false,
  drInProgress: false,
  ...over,
});

// Saturday 2026-11-21 with one working day's notice: earliest Monday 23rd, latest 19 December.
const w = registrationWindow('2026-11-21', 1);

describe('the registration window', () => {
  it('counts the lead time in working days and the horizon in calendar days', () => {
    expect(w).toEqual({ today: '2026-11-21', earliest: '2026-11-23', latest: '2026-12-19', leadDays: 1 });
    expect(REGISTRATION_HORIZON_DAYS).toBe(28);
  });

  it('crosses Christmas bank holidays for the earliest date', () => {
    expect(registrationWindow('2026-12-24', 1).earliest).toBe('2026-12-29');
  });

  it('never puts a meter point\'s earliest date before its own supply start date', () => {
    expect(earliestFor(mp({ supplyStartDate: '2026-12-01' }), w)).toBe('2026-12-01');
    expect(earliestFor(mp({ supplyStartDate: '2022-11-01' }), w)).toBe('2026-11-23');
    expect(earliestFor(mp({ supplyStartDate: null }), w)).toBe('2026-11-23');
  });
});

describe('deciding one meter point', () => {
  it('marks from the given date with the supplier\'s market participant id', () => {
    expect(decideRegistration(mp(), '2026-12-01', null, 'SUPP', w)).toEqual({ kind: 'mark', supplyStartDate: '2026-12-01', supplierMpid: 'SUPP' });
  });

  it('falls back to the meter point\'s mpid when the supplier has none', () => {
    expect(decideRegistration(mp(), '2026-12-01', null, null, w)).toEqual({ kind: 'mark', supplyStartDate: '2026-12-01', supplierMpid: 'MPMP' });
  });

  it('refuses with supplier_mpid_missing when neither has a market participant id', () => {
    expect(decideRegistration(mp({ mpid: null }), '2026-12-01', null, null, w)).toMatchObject({ kind: 'refuse', reason: 'supplier_mpid_missing' });
  });

  it('marks from the earliest valid date when no date is given', () => {
    expect(decideRegistration(mp(), null, null, 'SUPP', w)).toEqual({ kind: 'mark', supplyStartDate: '2026-11-23', supplierMpid: 'SUPP' });
    expect(decideRegistration(mp({ supplyStartDate: '2026-12-10' }), null, null, 'SUPP', w)).toEqual({
      kind: 'mark',
      supplyStartDate: '2026-12-10',
      supplierMpid: 'SUPP',
    });
  });

  it('answers already_marked for a repeat of the same date or a request without a date', () => {
    expect(decideRegistration(mp(), '2026-12-01', '2026-12-01', 'SUPP', w)).toEqual({ kind: 'already_marked', supplyStartDate: '2026-12-01' });
    expect(decideRegistration(mp(), null, '2026-12-01', 'SUPP', w)).toEqual({ kind: 'already_marked', supplyStartDate: '2026-12-01' });
  });

  it('refuses another date once marked, naming the marked date', () => {
    const d = decideRegistration(mp(), '2026-12-02', '2026-12-01', 'SUPP', w);
    expect(d).toMatchObject({ kind: 'refuse', reason: 'already_marked_for_other_date' });
    expect(d.kind === 'refuse' && d.detail).toContain('2026-12-01');
  });

  it('refuses erroneous transfers and disputed reads in progress', () => {
    expect(decideRegistration(mp({ etInProgress: true }), '2026-12-01', null, 'SUPP', w)).toMatchObject({ reason: 'erroneous_transfer_in_progress' });
    expect(decideRegistration(mp({ drInProgress: true }), '2026-12-01', null, 'SUPP', w)).toMatchObject({ reason: 'disputed_read_in_progress' });
    expect(decideRegistration(mp({ etInProgress: true }), null, null, 'SUPP', w)).toMatchObject({ reason: 'erroneous_transfer_in_progress' });
  });

  it.each([
    ['2026-11-20', 'supply_start_date_in_past'],
    ['2026-11-21', 'supply_start_date_within_lead_time'], // today: no notice at all
    ['2026-11-22', 'supply_start_date_within_lead_time'],
    ['2026-12-20', 'supply_start_date_beyond_horizon'],
  ])('refuses %s with %s', (date, reason) => {
    expect(decideRegistration(mp(), date, null, 'SUPP', w)).toMatchObject({ kind: 'refuse', reason });
  });

  it.each([['2026-11-23'], ['2026-12-19']])('accepts %s, an edge of the window', (date) => {
    expect(decideRegistration(mp(), date, null, 'SUPP', w)).toMatchObject({ kind: 'mark', supplyStartDate: date });
  });

  it('refuses a date before the meter point\'s own supply start date', () => {
    expect(decideRegistration(mp({ supplyStartDate: '2026-12-05' }), '2026-12-01', null, 'SUPP', w)).toMatchObject({
      reason: 'supply_start_date_before_meter_point_supply_start',
    });
  });

  it('refuses the earliest date when the meter point starts beyond the horizon', () => {
    expect(decideRegistration(mp({ supplyStartDate: '2027-02-01' }), null, null, 'SUPP', w)).toMatchObject({
      reason: 'supply_start_date_beyond_horizon',
    });
  });

  it('lets a zero lead time accept today', () => {
    expect(decideRegistration(mp(), '2026-11-21', null, 'SUPP', registrationWindow('2026-11-21', 0))).toMatchObject({ kind: 'mark' });
  });
});
