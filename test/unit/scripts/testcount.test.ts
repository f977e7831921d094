import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The closing lines of `npm test` (scripts/lib/testcount.js), run as scripts/test.sh runs it: a
 * folder of the run's plan and reports and the run's exit code in; one `count:` line per part
 * (planned, passed, failed, skipped) and, last, one plain `N passed, N failed[, N skipped]` line
 * and an exit code out.
 */
const SCRIPT = path.join(__dirname, '../../../scripts/lib/testcount.js');
const made: string[] = [];
afterAll(() => made.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function count(files: Record<string, string>, runCode = 0): { line: string; parts: Record<string, string>; code: number | null } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'testcount-'));
  made.push(dir);
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  const r = spawnSync(process.execPath, [SCRIPT, dir, String(runCode)], { encoding: 'utf8' });
  const lines = r.stdout.split('\n').filter(Boolean);
  const parts: Record<string, string> = {};
  for (const l of lines.slice(0, -1)) {
    const m = /^count: (\S+)\s+(.*)$/.exec(l);
    if (m) parts[m[1]!] = m[2]!.replace(/\s+/g, ' ');
  }
  return { line: `${lines[lines.length - 1]}\n`, parts, code: r.status };
}

const jestReport = (passed: number, failed: number, pending = 0, runtimeErrors = 0, files?: number) =>
  JSON.stringify({
    numPassedTests: passed,
    numFailedTests: failed,
    numPendingTests: pending,
    numTodoTests: 0,
    numRuntimeErrorTestSuites: runtimeErrors,
    ...(files === undefined ? {} : { testResults: Array.from({ length: files }, () => ({})) }),
  });

describe('the closing count line of npm test (scripts/lib/testcount.js)', () => {
  it('adds up the checks, jest, the fault suite and schemathesis, and exits 0 when nothing failed', () => {
    const r = count({
      checks: 'typecheck 0\nlint 0\n',
      'jest.json': jestReport(30, 0),
      'faults.log': '\u001b[1m[faults]\u001b[0m scenario worker\nfaults: 4 passed, 0 failed\n',
      'fuzz.log': 'fuzz: 18 passed, 0 failed\n',
    });
    expect(r.line).toBe('54 passed, 0 failed\n');
    expect(r.code).toBe(0);
  });

  it("adds the hosts harness's scenarios", () => {
    const r = count({ checks: 'typecheck 0\n', 'jest.json': jestReport(3, 0), 'hosts.log': '| leader-cut | 100 |\nhosts: 1 passed, 1 failed (logs in data/hosts/last-failure)\n' });
    expect(r).toMatchObject({ line: '5 passed, 1 failed\n', code: 1 });
  });

  it('adds the skipped tests of jest', () => {
    expect(count({ checks: 'typecheck 0\n', 'jest.json': jestReport(3, 0, 2) })).toMatchObject({ line: '4 passed, 0 failed, 2 skipped\n', code: 0 });
  });

  it('counts a failed check whatever its exit code, and exits 1', () => {
    for (const code of [1, 2, 10, 130]) {
      expect(count({ checks: `typecheck 0\nlint ${code}\n`, 'jest.json': jestReport(5, 0) })).toMatchObject({ line: '6 passed, 1 failed\n', code: 1 });
    }
  });

  it('counts a planned check that never reported as failed', () => {
    expect(count({ plan: 'checks 2 run\n', checks: 'typecheck 0\n', 'jest.json': jestReport(5, 0) })).toMatchObject({ line: '6 passed, 1 failed\n', code: 1 });
  });

  it("counts jest's failed tests and suites that failed to run", () => {
    expect(count({ 'jest.json': jestReport(5, 2, 0, 1) })).toMatchObject({ line: '5 passed, 3 failed\n', code: 1 });
  });

  it('counts a planned jest file the report does not name as one failed test', () => {
    const r = count({ plan: 'jest 4 run\n', 'jest.json': jestReport(10, 0, 0, 0, 3) });
    expect(r).toMatchObject({ line: '10 passed, 1 failed\n', code: 1 });
    expect(r.parts.jest).toMatch(/^11 planned, 10 passed, 1 failed, 0 skipped \(4 files; 1 planned files not reported\)$/);
  });

  it('counts every planned jest file as failed when jest left no readable report', () => {
    expect(count({ plan: 'jest 7 run\n', 'jest.json': '{"numPassedTests": 5' })).toMatchObject({ line: '0 passed, 7 failed\n', code: 1 });
    expect(count({ plan: 'jest 7 run\n' })).toMatchObject({ line: '0 passed, 7 failed\n', code: 1 });
  });

  it('counts a part that was left out as its planned units skipped, never absent', () => {
    const r = count({
      plan: 'checks 2 run\njest 3 run\nfaults 8 skip DATA_IMPORT_FAULTS=0\nhosts 4 skip no root (network namespaces)\nfuzz 24 run\nfuzz exit 0\n',
      checks: 'typecheck 0\nlint 0\n',
      'jest.json': jestReport(30, 0, 0, 0, 3),
      'fuzz.log': 'fuzz: 24 passed, 0 failed\n',
    });
    expect(r).toMatchObject({ line: '56 passed, 0 failed, 12 skipped\n', code: 0 });
    expect(r.parts).toEqual({
      checks: '2 planned, 2 passed, 0 failed, 0 skipped',
      jest: '30 planned, 30 passed, 0 failed, 0 skipped (3 files)',
      faults: '8 planned, 0 passed, 0 failed, 8 skipped (left out: DATA_IMPORT_FAULTS=0)',
      hosts: '4 planned, 0 passed, 0 failed, 4 skipped (left out: no root (network namespaces))',
      fuzz: '24 planned, 24 passed, 0 failed, 0 skipped',
    });
  });

  it("shows each part's wall time on its count line, and the slowest jest files before the count lines", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'testcount-'));
    made.push(dir);
    const file = (name: string, s: number) => ({ name: path.join(process.cwd(), name), startTime: 1_000, endTime: 1_000 + s * 1000 });
    fs.writeFileSync(path.join(dir, 'plan'), 'checks 2 run\nchecks time 95\njest 2 run\njest time 612\nfuzz 3 skip DATA_IMPORT_FUZZ=0\n');
    fs.writeFileSync(path.join(dir, 'checks'), 'typecheck 0\nlint 0\n');
    fs.writeFileSync(
      path.join(dir, 'jest.json'),
      JSON.stringify({ numPassedTests: 4, numFailedTests: 0, numPendingTests: 0, numTodoTests: 0, testResults: [file('test/unit/a.test.ts', 3), file('test/integration/b.test.ts', 41)] }),
    );
    const r = spawnSync(process.execPath, [SCRIPT, dir, '0'], { encoding: 'utf8' });
    const lines = r.stdout.split('\n').filter(Boolean);
    expect(lines.slice(0, 2).map((l) => l.replace(/\s+/g, ' '))).toEqual(['slowest: 41 s test/integration/b.test.ts', 'slowest: 3 s test/unit/a.test.ts']);
    expect(lines.filter((l) => l.startsWith('count:')).map((l) => l.replace(/\s+/g, ' '))).toEqual([
      'count: checks 2 planned, 2 passed, 0 failed, 0 skipped, 95 s',
      'count: jest 4 planned, 4 passed, 0 failed, 0 skipped, 612 s (2 files)',
      'count: fuzz 3 planned, 0 passed, 0 failed, 3 skipped (left out: DATA_IMPORT_FUZZ=0)',
    ]);
    expect(lines[lines.length - 1]).toBe('6 passed, 0 failed, 3 skipped');
  });

  it('counts every planned unit of a runner that crashed (no count line) as failed', () => {
    const r = count({ plan: 'faults 8 run\nfaults exit 2\n', 'jest.json': jestReport(5, 0), 'faults.log': '[faults] failed: Error: generate failed\n' });
    expect(r).toMatchObject({ line: '5 passed, 8 failed\n', code: 1 });
    expect(r.parts.faults).toMatch(/^8 planned, 0 passed, 8 failed, 0 skipped \(no count line/);
  });

  it('counts a part that ran without a plan and printed no count line as one failure', () => {
    expect(count({ 'jest.json': jestReport(5, 0), 'faults.log': 'killed\n' })).toMatchObject({ line: '5 passed, 1 failed\n', code: 1 });
  });

  it('counts the planned units a runner did not report as failed', () => {
    const r = count({ plan: 'hosts 4 run\nhosts exit 1\n', 'hosts.log': 'hosts: 1 passed, 1 failed\n' });
    expect(r).toMatchObject({ line: '1 passed, 3 failed\n', code: 1 });
  });

  it("takes the fuzz's skipped operations, and an operation missing from the fuzz fails the line", () => {
    expect(count({ plan: 'fuzz 24 run\nfuzz exit 0\n', 'fuzz.log': 'fuzz: 20 passed, 0 failed, 4 skipped\n' })).toMatchObject({ line: '20 passed, 0 failed, 4 skipped\n', code: 0 });
    // The runner counts a missing operation failed; had it not reported it at all, the plan does.
    expect(count({ plan: 'fuzz 24 run\nfuzz exit 1\n', 'fuzz.log': 'fuzz: 23 passed, 1 failed\n' })).toMatchObject({ line: '23 passed, 1 failed\n', code: 1 });
    expect(count({ plan: 'fuzz 24 run\nfuzz exit 0\n', 'fuzz.log': 'fuzz: 23 passed, 0 failed\n' })).toMatchObject({ line: '23 passed, 1 failed\n', code: 1 });
  });

  it('counts a part that exited non-zero with nothing failed as one failure more', () => {
    expect(count({ plan: 'fuzz 2 run\nfuzz exit 1\n', 'fuzz.log': 'fuzz: 2 passed, 0 failed\n' })).toMatchObject({ line: '2 passed, 1 failed\n', code: 1 });
  });

  it('takes the last count line of a part', () => {
    const r = count({ 'fuzz.log': 'fuzz: 1 passed, 0 failed\nretry\nfuzz: 17 passed, 1 failed\n' });
    expect(r).toMatchObject({ line: '17 passed, 1 failed\n', code: 1 });
  });

  it('never says 0 failed for a run that exited non-zero', () => {
    expect(count({ checks: 'typecheck 0\n', 'jest.json': jestReport(5, 0) }, 1)).toMatchObject({ line: '6 passed, 1 failed\n', code: 1 });
  });

  it('ends with the plain line, nothing after it', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'testcount-'));
    made.push(dir);
    fs.writeFileSync(path.join(dir, 'plan'), 'faults 8 skip DATA_IMPORT_FAULTS=0\n');
    const out = spawnSync(process.execPath, [SCRIPT, dir, '0'], { encoding: 'utf8' }).stdout;
    expect(out).toMatch(/\n0 passed, 0 failed, 8 skipped\n$/);
  });
});
