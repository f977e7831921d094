import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * scripts/lib/common.sh private_data and ensure_signing_key, as scripts/up.sh runs them (issue 39):
 * data/ and what the services write there are this user's alone, and the token signing key is
 * generated once per install, kept 0600 and reused; an API host without one stops.
 */
const COMMON = path.join(__dirname, '../../../scripts/lib/common.sh');
const made: string[] = [];
afterAll(() => made.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function bash(script: string, env: Record<string, string | undefined> = {}) {
  const base = { ...process.env };
  delete base.AUTH_SIGNING_KEY;
  const r = spawnSync('bash', ['-c', `source "${COMMON}"; ${script}`], { env: { ...base, ...env }, encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, out: r.stdout, err: r.stderr.replace(/\u001b\[[0-9;]*m/g, '') };
}
const mode = (p: string) => (fs.statSync(p).mode & 0o777).toString(8);

describe('data/ of npm run up: private, with this install\'s signing key', () => {
  it('makes data/ and everything written under it afterwards 0700/0600, and narrows what an earlier run left', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'private-data-'));
    made.push(root);
    const data = path.join(root, 'data');
    fs.mkdirSync(path.join(data, 'logs'), { recursive: true, mode: 0o755 });
    fs.writeFileSync(path.join(data, 'logs', 'api-1.log'), 'old', { mode: 0o644 });
    fs.chmodSync(path.join(data, 'logs', 'api-1.log'), 0o644);
    // What the services write later (a log, the mail sink's folder and a mail) inherits the umask.
    const r = bash(`private_data "${data}" && mkdir -p "${data}/maildev" && echo mail > "${data}/maildev/1.eml" && node -e 'require("fs").writeFileSync(process.argv[1], "x")' "${data}/logs/worker-1.log"`);
    expect(r.code).toBe(0);
    expect(mode(data)).toBe('700');
    expect(mode(path.join(data, 'logs'))).toBe('700');
    expect(mode(path.join(data, 'logs', 'api-1.log'))).toBe('600');
    expect(mode(path.join(data, 'logs', 'worker-1.log'))).toBe('600');
    expect(mode(path.join(data, 'maildev'))).toBe('700');
    expect(mode(path.join(data, 'maildev', '1.eml'))).toBe('600');
  });

  it('generates the signing key once (0600, 64 characters) and reuses it on later runs', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'signing-key-'));
    made.push(root);
    const file = path.join(root, 'auth-signing-key');
    const first = bash(`ensure_signing_key all "${file}" && printf '%s' "$AUTH_SIGNING_KEY"`);
    expect(first.code).toBe(0);
    expect(first.out).toMatch(/^[A-Za-z0-9_-]{64}$/);
    expect(first.err).toContain('generated this install\'s token signing key');
    expect(mode(file)).toBe('600');
    const second = bash(`ensure_signing_key all "${file}" && printf '%s' "$AUTH_SIGNING_KEY"`);
    expect(second.out).toBe(first.out);
    expect(second.err).not.toContain('generated');
    // The environment's key takes precedence and no file is written.
    const given = bash(`ensure_signing_key all "${root}/other" && printf '%s' "$AUTH_SIGNING_KEY"`, { AUTH_SIGNING_KEY: 'k'.repeat(40) });
    expect(given.out).toBe('k'.repeat(40));
    expect(fs.existsSync(path.join(root, 'other'))).toBe(false);
  });

  it('stops an API host without AUTH_SIGNING_KEY, naming it; a worker host needs none', () => {
    const r = bash('ensure_signing_key api /nonexistent/key; echo reached');
    expect(r.code).not.toBe(0);
    expect(r.out).not.toContain('reached');
    expect(r.err).toContain('--role api: set AUTH_SIGNING_KEY');
    expect(bash('ensure_signing_key worker /nonexistent/key && echo "[${AUTH_SIGNING_KEY:-}]"').out).toBe('[]\n');
  });
});
