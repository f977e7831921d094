/**
 * The fault suite's verdict on one scenario's faults (test/faults/run.ts): a scenario tests its
 * faults only if every planned fault was injected and the stack was seen to recover from each.
 * A book that finished before the last fault, or a recovery the runner gave up watching, is a
 * failed scenario, not a pass with fewer faults: the remedy is more `--accounts` (or fewer faults).
 */
export interface InjectedFault {
  what: string;
  /** ms from the fault until the stack answered or progressed again; null when that was never seen */
  recoveredMs: number | null;
}

/** The problems of a scenario's faults: none when each of the `planned` faults was injected and recovered from. */
export function faultProblems(scenario: string, planned: number, faults: InjectedFault[]): string[] {
  const problems: string[] = [];
  if (planned === 0) problems.push(`${scenario}: no fault planned: the scenario tested nothing`);
  if (faults.length < planned) problems.push(`${scenario}: ${faults.length} of ${planned} planned faults injected (the book finished first: use more --accounts)`);
  for (const [i, f] of faults.entries()) {
    if (f.recoveredMs === null) problems.push(`${scenario}: no recovery observed after fault ${i + 1} (${f.what})`);
  }
  return problems;
}
