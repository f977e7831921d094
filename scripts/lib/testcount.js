// The closing lines of `npm test` (scripts/test.sh): one `count:` line per part with its planned,
// passed, failed and skipped units, then the plain `N passed, N failed[, N skipped]` line that a CI
// system reads (the sum of the parts), always last. Reads DIR:
// - plan: one line per part, `<part> <planned> run` or `<part> <planned> skip <why>`, written by
//   scripts/test.sh before the part runs (faults, hosts, fuzz: the runner's own `--plan`; jest:
//   `jest --listTests`, in files), `<part> exit <code>` once a part that ran has exited, and
//   `<part> time <seconds>` once it ended (its wall time, shown on its `count:` line);
// - checks: one line `<name> <exit code>` per whole-tree check (type check, lint), one unit each;
// - jest.json: jest's --json report. Units are tests (passed, failed, skipped = pending + todo); a
//   suite that failed to run counts as one failed test, and so does a planned file the report
//   does not name. Without a readable report every planned file counts as one failed unit;
// - faults.log / hosts.log / fuzz.log: the output of scripts/faults.sh, scripts/hosts.sh and
//   scripts/fuzz.sh, whose runners end with `<part>: N passed, N failed[, N skipped]` (fault
//   scenarios, hosts scenarios and the intruder check, fuzz operations).
// A part planned and left out counts its planned units as skipped. A part that ran and printed no
// count line (its runner crashed) counts every planned unit as failed; one that reported fewer
// units than planned counts the rest as failed; one that exited non-zero with nothing failed counts
// one failure more, as does the whole run (RUN_CODE) — the line never says 0 failed for a failed run.
// Prints the lines; exits 1 when N failed > 0.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const RUNNERS = ['faults', 'hosts', 'fuzz'];

/** The parts of the run in DIR, and their sum: { parts: [{part, planned, passed, failed, skipped, note}], passed, failed, skipped }. */
function tally(dir, runCode) {
  const read = (name) => {
    try {
      return fs.readFileSync(path.join(dir, name), 'utf8');
    } catch {
      return null;
    }
  };
  /** part → { planned, state: 'run' | 'skip', why, exit } */
  const plan = new Map();
  for (const line of (read('plan') ?? '').split('\n').filter(Boolean)) {
    const [part, a, b, ...rest] = line.trim().split(/\s+/);
    const entry = plan.get(part) ?? { planned: null, state: 'run', why: '', exit: null, seconds: null };
    if (a === 'exit') entry.exit = Number(b);
    else if (a === 'time') entry.seconds = Number(b);
    else {
      entry.planned = Number(a);
      entry.state = b === 'skip' ? 'skip' : 'run';
      entry.why = rest.join(' ');
    }
    plan.set(part, entry);
  }
  const parts = [];

  const checks = (read('checks') ?? '').split('\n').filter(Boolean);
  if (checks.length > 0 || plan.has('checks')) {
    const planned = Math.max(plan.get('checks')?.planned ?? 0, checks.length);
    const passed = checks.filter((l) => /\s0$/.test(l)).length;
    parts.push({ part: 'checks', planned, passed, failed: planned - passed, skipped: 0, note: checks.length < planned ? `${planned - checks.length} did not run` : '' });
  }

  const jestPlan = plan.get('jest');
  const jest = read('jest.json');
  if (jestPlan?.state === 'skip') {
    parts.push({ part: 'jest', planned: jestPlan.planned, passed: 0, failed: 0, skipped: jestPlan.planned, note: `files; ${jestPlan.why}` });
  } else if (jest !== null || jestPlan) {
    let r = null;
    try {
      r = JSON.parse(jest ?? '');
    } catch {
      r = null;
    }
    if (r && typeof r.numPassedTests === 'number') {
      const runtime = r.numRuntimeErrorTestSuites ?? 0;
      const reportedFiles = Array.isArray(r.testResults) ? r.testResults.length : null;
      // Files jest was to run and did not report (it stopped early): one failed unit each.
      const unreported = jestPlan?.planned != null && reportedFiles !== null ? Math.max(0, jestPlan.planned - reportedFiles) : 0;
      const passed = r.numPassedTests;
      const failed = r.numFailedTests + runtime + unreported;
      const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
      const files = jestPlan?.planned != null ? `${jestPlan.planned} files` : '';
      const notes = [files, runtime ? `${runtime} suites failed to run` : '', unreported ? `${unreported} planned files not reported` : ''].filter(Boolean);
      parts.push({ part: 'jest', planned: passed + failed + skipped, passed, failed, skipped, note: notes.join('; ') });
    } else {
      const planned = Math.max(1, jestPlan?.planned ?? 1);
      parts.push({ part: 'jest', planned, passed: 0, failed: planned, skipped: 0, note: 'no readable report: every planned file counted failed' });
    }
  }

  for (const part of RUNNERS) {
    const p = plan.get(part);
    const text = read(`${part}.log`);
    if (p?.state === 'skip') {
      parts.push({ part, planned: p.planned, passed: 0, failed: 0, skipped: p.planned, note: `left out: ${p.why}` });
      continue;
    }
    if (text === null && !p) continue;
    const planned = p?.planned ?? null;
    // eslint-disable-next-line no-control-regex
    const plain = (text ?? '').replace(/\u001b\[[0-9;]*m/g, '');
    const m = [...plain.matchAll(new RegExp(`^${part}: (\\d+) passed, (\\d+) failed(?:, (\\d+) skipped)?`, 'gm'))].pop();
    if (!m) {
      const n = Math.max(1, planned ?? 1);
      parts.push({ part, planned: n, passed: 0, failed: n, skipped: 0, note: 'no count line (the runner crashed): every planned unit counted failed' });
      continue;
    }
    let [passed, failed, skipped] = [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
    const notes = [];
    const reported = passed + failed + skipped;
    if (planned !== null && reported < planned) {
      failed += planned - reported;
      notes.push(`${planned - reported} planned units not reported: counted failed`);
    } else if (planned !== null && reported > planned) notes.push(`${reported} reported, ${planned} planned`);
    if (p?.exit != null && p.exit !== 0 && failed === 0) {
      failed += 1;
      notes.push(`exited ${p.exit} with nothing failed: one failure more`);
    }
    parts.push({ part, planned: Math.max(planned ?? 0, passed + failed + skipped), passed, failed, skipped, note: notes.join('; ') });
  }

  for (const p of parts) p.seconds = plan.get(p.part)?.seconds ?? null;
  const sum = (k) => parts.reduce((n, p) => n + p[k], 0);
  const total = { parts, passed: sum('passed'), failed: sum('failed'), skipped: sum('skipped') };
  if (Number(runCode) !== 0 && total.failed === 0) {
    total.failed = 1;
    parts.push({ part: 'run', planned: 1, passed: 0, failed: 1, skipped: 0, seconds: null, note: `exited ${runCode} with nothing failed` });
  }
  total.slowest = slowestFiles(read('jest.json'), 10);
  return total;
}

/** The `n` jest files that took longest, `[{file, seconds}]`, from jest's --json report (none without one). */
function slowestFiles(text, n) {
  let r;
  try {
    r = JSON.parse(text ?? '');
  } catch {
    return [];
  }
  if (!Array.isArray(r?.testResults)) return [];
  return r.testResults
    .filter((t) => typeof t?.name === 'string' && typeof t?.startTime === 'number' && typeof t?.endTime === 'number')
    .map((t) => ({ file: path.relative(process.cwd(), t.name), seconds: Math.round((t.endTime - t.startTime) / 1000) }))
    .sort((a, b) => b.seconds - a.seconds)
    .slice(0, n);
}

/**
 * The jest files that took longest (`slowest:` lines, where the time goes), the `count:` lines, each
 * with its part's wall time when known, and the closing line.
 */
function render(total) {
  const w = Math.max(...total.parts.map((p) => p.part.length), 6);
  const lines = (total.slowest ?? []).map((f) => `slowest: ${String(f.seconds).padStart(5)} s ${f.file}`);
  lines.push(
    ...total.parts.map(
      (p) =>
        `count: ${p.part.padEnd(w)} ${String(p.planned).padStart(5)} planned, ${String(p.passed).padStart(5)} passed, ${String(p.failed).padStart(4)} failed, ${String(p.skipped).padStart(4)} skipped${p.seconds != null ? `, ${String(p.seconds).padStart(4)} s` : ''}${p.note ? ` (${p.note})` : ''}`,
    ),
  );
  lines.push(`${total.passed} passed, ${total.failed} failed${total.skipped > 0 ? `, ${total.skipped} skipped` : ''}`);
  return `${lines.join('\n')}\n`;
}

module.exports = { tally, render };

if (require.main === module) {
  const [dir, runCode] = process.argv.slice(2);
  const total = tally(dir, runCode);
  process.stdout.write(render(total));
  process.exit(total.failed > 0 ? 1 : 0);
}
