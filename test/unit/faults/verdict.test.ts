import { faultProblems } from '../../faults/verdict';

/** The fault suite's verdict on a scenario's faults (test/faults/run.ts through test/faults/verdict.ts). */
describe('a fault scenario fails unless every planned fault was injected and every recovery observed', () => {
  const recovered = (n: number) => Array.from({ length: n }, (_, i) => ({ what: `SIGKILL worker-${i + 1}`, recoveredMs: 1200 + i }));

  it('passes with every planned fault injected and recovered from', () => {
    expect(faultProblems('worker', 3, recovered(3))).toEqual([]);
  });

  it('fails with fewer faults injected than planned (the book finished first)', () => {
    expect(faultProblems('worker', 3, recovered(1))).toEqual(['worker: 1 of 3 planned faults injected (the book finished first: use more --accounts)']);
    expect(faultProblems('api', 1, [])).toEqual(['api: 0 of 1 planned faults injected (the book finished first: use more --accounts)']);
  });

  it('fails when a recovery was never observed', () => {
    const faults = [...recovered(1), { what: 'PostgreSQL crash restart', recoveredMs: null }];
    expect(faultProblems('postgres', 2, faults)).toEqual(['postgres: no recovery observed after fault 2 (PostgreSQL crash restart)']);
  });

  it('fails a scenario with no fault planned: it tests nothing', () => {
    expect(faultProblems('worker', 0, [])).toEqual(['worker: no fault planned: the scenario tested nothing']);
  });
});
