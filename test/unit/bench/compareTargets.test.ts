import { compareTargets, type ProfileRun, type SideResult } from '../../../bench/lib/compareTable';

/** A side with only the figures compareTargets reads. */
function side(cpuTotal: number, extra: Partial<SideResult> = {}): SideResult {
  return { cpuMsPerAccount: { worker: 0, temporal: 0, postgres: 0, api: 0, client: 0, total: cpuTotal }, ...extra } as SideResult;
}

function run(profile: string, before: SideResult, after: SideResult, stack: ProfileRun['stack'] = 'memory'): ProfileRun {
  return { profile, stack, accounts: 10, seed: 's', baselinePerSecond: 1, before, after };
}

describe('bench:compare targets of issue 35', () => {
  it('holds the typical account to 5 % of before, the full one to twice the typical one, its validation to 2 ms, and reports its storage', () => {
    const storage = { accounts: 10, bytesPerAccount: 102_400, accountTableBytesPerAccount: 81_920, rowBytesPerAccount: 51_200, byTable: {} };
    const validation = { accounts: 10, valid: 10, medianMs: 1.5, p99Ms: 3, meanMs: 1.6 };
    const targets = compareTargets({ typical: run('typical', side(100), side(104)), full: run('full', side(500), side(210, { storage, validation })) });
    expect(targets.map((t) => [t.figure, t.met])).toEqual([
      ['typical account, CPU ms/account after ÷ before', true],
      ['full account ÷ typical account, CPU ms/account (after)', false],
      ['full account validation, median ms (after)', true],
      ['storage per full account (after)', undefined],
    ]);
    expect(targets[1]!.value).toBe('210 ÷ 104 = 2.02');
    expect(targets[3]!.value).toBe('100 KB in PostgreSQL (account tables 80 KB with indexes, rows 50 KB)');
  });

  it('compares a full account with a typical one only on the same stack, and leaves out what was not measured', () => {
    const targets = compareTargets({ 'typical, as run': run('typical', side(100), side(120), 'as-run'), full: run('full', side(300), side(150, { storage: null, validation: { accounts: 10, valid: 0, medianMs: NaN, p99Ms: NaN, meanMs: NaN, error: 'no validator' } })) });
    expect(targets.map((t) => [t.figure, t.met])).toEqual([['typical account, CPU ms/account after ÷ before', false]]);
  });
});
