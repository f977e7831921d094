import { spawnSync } from 'node:child_process';
import path from 'node:path';

/**
 * `npm run up -- --role api|worker` (scripts/up.sh) is one host of several: it starts no server, so
 * it refuses to go on, before starting anything, without the other hosts' addresses.
 */
const UP = path.join(__dirname, '../../../scripts/up.sh');

function up(args: string[], env: Record<string, string | undefined>) {
  const base = { ...process.env };
  for (const k of ['DATABASE_URL', 'NATS_URL', 'TEMPORAL_ADDRESS', 'SMTP_URL', 'DATA_IMPORT_LOCAL_SERVICES']) delete base[k];
  const r = spawnSync('bash', [UP, ...args], { env: { ...base, ...env }, encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, err: r.stderr.replace(/\u001b\[[0-9;]*m/g, '') };
}

describe('npm run up --role', () => {
  it('names every missing server variable of a worker host and starts nothing', () => {
    const r = up(['--role', 'worker'], {});
    expect(r.code).not.toBe(0);
    expect(r.err).toContain('set DATABASE_URL NATS_URL TEMPORAL_ADDRESS SMTP_URL');
  });

  it('does not ask an API host for SMTP_URL', () => {
    const r = up(['--role', 'api'], { DATABASE_URL: 'postgres://x', TEMPORAL_ADDRESS: 'x:7233' });
    expect(r.code).not.toBe(0);
    expect(r.err).toContain('set NATS_URL to');
  });

  it('stops an API host without AUTH_SIGNING_KEY before starting anything (there is no built-in key)', () => {
    const r = up(['--role', 'api'], { DATABASE_URL: 'postgres://x', NATS_URL: 'nats://y', TEMPORAL_ADDRESS: 'z:7233', AUTH_SIGNING_KEY: '' });
    expect(r.code).not.toBe(0);
    expect(r.err).toContain('--role api: set AUTH_SIGNING_KEY');
  });

  it('refuses an unknown role, and --local-services with a role', () => {
    expect(up(['--role', 'db'], {}).err).toContain("--role expects all, api or worker, got 'db'");
    const r = up(['--role', 'api', '--local-services'], { DATABASE_URL: 'x', NATS_URL: 'y', TEMPORAL_ADDRESS: 'z' });
    expect(r.code).not.toBe(0);
    expect(r.err).toContain('do not go together');
  });
});
