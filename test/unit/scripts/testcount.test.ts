import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The closing line of `npm test` (scripts/lib/testcount.js), run as scripts/test.sh runs it: a
 * folder of the run's reports and the run's exit code in, one `N passed, N failed[, N skipped]`
 * line and an exit code out.
 */
const SCRIPT = path.join(__dirname, '../../../scripts/lib/testcount.js');
const made: string[] = [];
afterAll(() => made.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function count(files: Record<string, string>, runCode = 0): { line: string; code: number | null } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'testcount-'));
  made.push(dir);
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  const r = spawnSync(process.execPath, [SCRIPT, dir, String(runCode)], { encoding: 'utf8' });
  return { line: r.stdout, code: r.status };
}

const jestReport = (passed: number, failed: number, pending = 0, runtimeErrors = 0) =>
  JSON.stringify({ numPassedTests: passed, numFailedTests: failed, numPendingTests: pending, numTodoTests: 0, numRuntimeErrorTestSuites: runtimeErrors });

describe('the closing count line of npm test (scripts/lib/testcount.js)', () => {
  it('adds up the checks, jest, the fault suite and schemathesis, and exits 0 when nothing failed', () => {
    const r = count({
      checks: 'typecheck 0\nlint 0\n',
      'jest.json': jestReport(30, 0),
      'faults.log': '\u001b[1m[faults]\u001b[0m scenario worker\nfaults: 4 passed, 0 failed\n',
      'fuzz.log': 'fuzz: 18 passed, 0 failed\n',
    });
    expect(r).toEqual({ line: '54 passed, 0 failed\n', code: 0 });
  });

  it("adds the hosts harness's scenarios", () => {
    const r = count({ checks: 'typecheck 0\n', 'jest.json': jestReport(3, 0), 'hosts.log': '| leader-cut | 100 |\nhosts: 1 passed, 1 failed (logs in data/hosts/last-failure)\n' });
    expect(r).toEqual({ line: '5 passed, 1 failed\n', code: 1 });
  });

  it('adds skipped only when jest skipped tests', () => {
    expect(count({ checks: 'typecheck 0\n', 'jest.json': jestReport(3, 0, 2) })).toEqual({ line: '4 passed, 0 failed, 2 skipped\n', code: 0 });
  });

  it('counts a failed check whatever its exit code, and exits 1', () => {
    for (const code of [1, 2, 10, 130]) {
      expect(count({ checks: `typecheck 0\nlint ${code}\n`, 'jest.json': jestReport(5, 0) })).toEqual({ line: '6 passed, 1 failed\n', code: 1 });
    }
  });

  it("counts jest's failed tests and suites that failed to run", () => {
    expect(count({ 'jest.json': jestReport(5, 2, 0, 1) })).toEqual({ line: '5 passed, 3 failed\n', code: 1 });
  });

  it('counts a part that ran and printed no count line, or an unreadable jest report, as one failure', () => {
    expect(count({ 'jest.json': jestReport(5, 0), 'faults.log': 'killed\n' })).toEqual({ line: '5 passed, 1 failed\n', code: 1 });
    expect(count({ 'jest.json': '{"numPassedTests": 5' })).toEqual({ line: '0 passed, 1 failed\n', code: 1 });
  });

  it('takes the last count line of a part', () => {
    const r = count({ 'fuzz.log': 'fuzz: 1 passed, 0 failed\nretry\nfuzz: 17 passed, 1 failed\n' });
    expect(r).toEqual({ line: '17 passed, 1 failed\n', code: 1 });
  });

  it('never says 0 failed for a run that exited non-zero', () => {
    expect(count({ checks: 'typecheck 0\n', 'jest.json': jestReport(5, 0) }, 1)).toEqual({ line: '6 passed, 1 failed\n', code: 1 });
  });
});
