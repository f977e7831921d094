/**
 * The validation time of a book's accounts with another checkout's validator (its
 * `dist/account/validator.js` and the default reference data of its `dist/account/referenceData.js`),
 * in a process of its own: in process, on already-parsed bodies, after one warm-up pass, as
 * bench/validate.ts measures it. Each account is validated `rounds` times; the figures are over
 * every validation.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';

export interface ValidationReport {
  accounts: number;
  /** Accounts the validator accepts. */
  valid: number;
  medianMs: number;
  p99Ms: number;
  meanMs: number;
  /** Why nothing was measured (the checkout has no such validator, it threw…). */
  error?: string;
}

const SCRIPT = `
const fs = require('node:fs');
const [root, input, rounds] = process.argv.slice(1);
const { createAccountValidator } = require(root + '/dist/account/validator.js');
const { buildReferenceData, DEFAULT_REFERENCE_DATA_ROWS } = require(root + '/dist/account/referenceData.js');
const reference = buildReferenceData(DEFAULT_REFERENCE_DATA_ROWS);
const validator = createAccountValidator({
  referenceData: () => reference,
  suppliers: async (code) => ({ code, status: 'Ongoing', documentRoot: '/srv/documents', checkDocumentExistence: false, sendCustomerEmails: true }),
  documentStore: { exists: async () => true },
  now: () => new Date(),
});
(async () => {
  const accounts = fs.readFileSync(input, 'utf8').split('\\n').filter((l) => l !== '').map((l) => JSON.parse(l));
  let valid = 0;
  for (const a of accounts) if ((await validator.validate(a, { mode: 'create' })).ok) valid++;
  const samples = [];
  for (let r = 0; r < Number(rounds); r++) {
    for (const a of accounts) {
      const t0 = process.hrtime.bigint();
      await validator.validate(a, { mode: 'create' });
      samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  }
  samples.sort((x, y) => x - y);
  const at = (q) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))];
  const mean = samples.reduce((s, x) => s + x, 0) / samples.length;
  process.stdout.write(JSON.stringify({ accounts: accounts.length, valid, medianMs: +at(0.5).toFixed(3), p99Ms: +at(0.99).toFixed(3), meanMs: +mean.toFixed(3) }));
})().catch((err) => { console.error(err); process.exit(1); });
`;

/** Validation time of the accounts of `input` (NDJSON) with `root`'s validator: about `samples` validations in all. */
export function validationTime(root: string, input: string, accounts: number, samples = 3_000): ValidationReport {
  const rounds = Math.max(2, Math.ceil(samples / Math.max(1, accounts)));
  try {
    const out = execFileSync(process.execPath, ['-e', SCRIPT, path.resolve(root), path.resolve(input), String(rounds)], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 20 });
    return JSON.parse(out.toString()) as ValidationReport;
  } catch (err) {
    const e = err as { stderr?: Buffer; message: string };
    return { accounts, valid: 0, medianMs: NaN, p99Ms: NaN, meanMs: NaN, error: (e.stderr?.toString().trim().split('\n').pop() ?? e.message).slice(0, 300) };
  }
}
