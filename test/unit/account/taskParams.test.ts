import { errorsOf, example, NOW, validator } from './helpers';

const HOUR = 3600 * 1000;
const iso = (ms: number) => new Date(NOW.getTime() + ms).toISOString().replace('.000Z', 'Z');

describe('envelope form {payload, task_params}', () => {
  it('accepts the envelope and reads its task params', async () => {
    const outcome = await validator().validate(
      { payload: example(), task_params: { is_dry_run: true, schedule_window_start: iso(HOUR), schedule_window_end: iso(2 * HOUR) } },
      { mode: 'create' },
    );
    if (!outcome.ok) throw new Error(JSON.stringify(outcome.errors));
    expect(outcome.taskParams).toEqual({
      isDryRun: true,
      scheduleWindowStart: new Date(NOW.getTime() + HOUR),
      scheduleWindowEnd: new Date(NOW.getTime() + 2 * HOUR),
    });
  });

  it('defaults to no dry run, a window from now to 4 days later', async () => {
    for (const body of [example(), { payload: example() }]) {
      const outcome = await validator().validate(body, { mode: 'create' });
      if (!outcome.ok) throw new Error(JSON.stringify(outcome.errors));
      expect(outcome.taskParams).toEqual({ isDryRun: false, scheduleWindowStart: NOW, scheduleWindowEnd: new Date(NOW.getTime() + 96 * HOUR) });
    }
  });

  it('ends a window given only a start 4 days after that start', async () => {
    const outcome = await validator().validate({ payload: example(), task_params: { schedule_window_start: iso(HOUR) } }, { mode: 'create' });
    if (!outcome.ok) throw new Error(JSON.stringify(outcome.errors));
    expect(outcome.taskParams.scheduleWindowEnd).toEqual(new Date(NOW.getTime() + 97 * HOUR));
  });

  it('rejects a start in the past with schedule_window_start_in_past', async () => {
    const body = { payload: example(), task_params: { schedule_window_start: iso(-HOUR) } };
    expect(errorsOf(await validator().validate(body, { mode: 'create' }))).toEqual(['schedule_window_start_in_past@task_params.schedule_window_start']);
  });

  it('rejects an end more than 4 days ahead with schedule_window_end_too_far_in_future', async () => {
    const body = { payload: example(), task_params: { schedule_window_end: iso(96 * HOUR + 60_000) } };
    expect(errorsOf(await validator().validate(body, { mode: 'create' }))).toEqual(['schedule_window_end_too_far_in_future@task_params.schedule_window_end']);
  });

  it('rejects a start after the end with schedule_window_start__after_end', async () => {
    const body = { payload: example(), task_params: { schedule_window_start: iso(3 * HOUR), schedule_window_end: iso(2 * HOUR) } };
    expect(errorsOf(await validator().validate(body, { mode: 'create' }))).toEqual(['schedule_window_start__after_end@task_params.schedule_window_start']);
  });

  it('reports task param shape errors under task_params and account errors relative to the account', async () => {
    const payload = example();
    payload.customers[0].email = 'nope';
    const body = { payload, task_params: { is_dry_run: 'yes', schedule_window_start: 'soon', extra: 1 } };
    expect(errorsOf(await validator().validate(body, { mode: 'validate' }))).toEqual([
      'unknown_field@task_params.extra',
      'invalid@task_params.is_dry_run',
      'invalid_datetime@task_params.schedule_window_start',
      'invalid_email@customers.0.email',
    ]);
  });

  it('answers an envelope whose payload is not an object with invalid on non_field_errors', async () => {
    expect(errorsOf(await validator().validate({ payload: [1] }, { mode: 'validate' }))).toEqual(['invalid@non_field_errors']);
  });
});
