import { MAX_REPORTED_ERRORS } from '../../../account/validator';
import { LIMITS } from '../../../account/schema';
import { check, example } from './helpers';
import { gasMeter } from './mutate';

describe('bounded work on hostile payloads', () => {
  it('reports at most MAX_REPORTED_ERRORS errors plus too_many_errors for 100,000 bad readings (its time: bench/validate.ts, hostile)', async () => {
    const account = example();
    // 5 meters × 20,000 readings (the per-meter cap), every reading malformed.
    const bad = { reading_date: '2026-02-30', reading_value: '1e3', reading_type: 'GUESS', billed: 'yes' };
    gasMeter(account).reading_history = Array.from({ length: LIMITS.readings }, () => ({ ...bad }));
    for (let k = 1; k < 5; k++) {
      account.supply_addresses[0].meter_points[1].meters.push({ ...structuredClone(gasMeter(account)), meter_serial_number: `G${k}` });
    }
    const outcome = await check(account);
    if (outcome.ok) throw new Error('expected errors');
    expect(outcome.errors).toHaveLength(MAX_REPORTED_ERRORS + 1);
    expect(outcome.errors[MAX_REPORTED_ERRORS]).toMatchObject({ code: 'too_many_errors', attr: 'non_field_errors' });
    expect(outcome.errors[0]).toMatchObject({ code: 'invalid_date', attr: 'supply_addresses.0.meter_points.1.meters.0.reading_history.0.reading_date' });
  });

  it('rejects an array beyond its cap with max_length on the array', async () => {
    const account = example();
    const reading = gasMeter(account).reading_history[0];
    gasMeter(account).reading_history = Array.from({ length: LIMITS.readings + 1 }, () => reading);
    const outcome = await check(account);
    expect(outcome.ok ? [] : outcome.errors.map((e) => `${e.code}@${e.attr}`)).toEqual(['max_length@supply_addresses.0.meter_points.1.meters.0.reading_history']);
  });

  it('reports exactly MAX_REPORTED_ERRORS errors without too_many_errors when that is all there is', async () => {
    const account = example();
    gasMeter(account).reading_history = Array.from({ length: MAX_REPORTED_ERRORS }, () => ({ reading_date: 'x', reading_value: '1', reading_type: 'ROUTINE' }));
    const outcome = await check(account);
    if (outcome.ok) throw new Error('expected errors');
    expect(outcome.errors).toHaveLength(MAX_REPORTED_ERRORS);
    expect(outcome.errors.map((e) => e.code)).not.toContain('too_many_errors');
  });
});
