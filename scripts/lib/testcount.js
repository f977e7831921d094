// The closing line of `npm test` (scripts/test.sh): `N passed, N failed` (`, N skipped` when jest
// skipped any), the parts of one run added up from their own reports in DIR:
// - checks: one line `<name> <exit code>` per whole-tree check (type check, lint), one check each;
// - jest.json: jest's --json report (tests passed, failed, skipped; a suite that failed to run
//   counts as one failed test);
// - faults.log / hosts.log / fuzz.log: the output of scripts/faults.sh, scripts/hosts.sh and
//   scripts/fuzz.sh, whose runners end with `faults: N passed, N failed` (scenarios), `hosts: N
//   passed, N failed` (scenarios) and `fuzz: N passed, N failed` (operations);
//   a part that ran and printed no such line counts as one failed.
// A run whose exit code (RUN_CODE) is not 0 while nothing counted failed counts one failure more,
// so the line never says 0 failed for a failed run. Prints the line; exits 1 when N failed > 0.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const [dir, runCode] = process.argv.slice(2);
let passed = 0;
let failed = 0;
let skipped = 0;
const read = (name) => {
  try {
    return fs.readFileSync(path.join(dir, name), 'utf8');
  } catch {
    return null;
  }
};

for (const line of (read('checks') ?? '').split('\n').filter(Boolean)) {
  if (line.endsWith(' 0')) passed += 1;
  else failed += 1;
}

const jest = read('jest.json');
if (jest !== null) {
  try {
    const r = JSON.parse(jest);
    passed += r.numPassedTests;
    failed += r.numFailedTests + (r.numRuntimeErrorTestSuites ?? 0);
    skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  } catch {
    failed += 1;
  }
}

for (const [file, label] of [['faults.log', 'faults'], ['hosts.log', 'hosts'], ['fuzz.log', 'fuzz']]) {
  const text = read(file);
  if (text === null) continue;
  // eslint-disable-next-line no-control-regex
  const plain = text.replace(/\u001b\[[0-9;]*m/g, '');
  const m = [...plain.matchAll(new RegExp(`^${label}: (\\d+) passed, (\\d+) failed`, 'gm'))].pop();
  if (m) {
    passed += Number(m[1]);
    failed += Number(m[2]);
  } else {
    failed += 1;
  }
}

if (Number(runCode) !== 0 && failed === 0) failed = 1;
process.stdout.write(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}\n`);
process.exit(failed > 0 ? 1 : 0);
