import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { Writable } from 'node:stream';
import { redactUrl, redactUrls } from '../../../lib/redact';
import { ConfigError, loadConfig } from '../../../lib/config';
import { createLogger } from '../../../lib/logger';

/** Issue 39 (Low): a connection URL's password never reaches an error message, a log line or a script's output. */
describe('credentials out of printed URLs', () => {
  it('redacts passwords and NATS tokens, keeps the rest', () => {
    expect(redactUrl('postgres://app:s3cret@db:5432/data_import?sslmode=verify-full')).toBe('postgres://app:***@db:5432/data_import?sslmode=verify-full');
    expect(redactUrl('nats://tok3n@n1:4222')).toBe('nats://***@n1:4222');
    expect(redactUrl('postgres://postgres@127.0.0.1:5432/x')).toBe('postgres://postgres@127.0.0.1:5432/x');
    expect(redactUrls('connect to "postgres://a:b@h/x" and smtp://u:p@mail:587, nats://t@n:4222')).toBe('connect to "postgres://a:***@h/x" and smtp://u:***@mail:587, nats://***@n:4222');
    expect(redactUrl('postgres://a:b@h:notaport:x/db')).not.toContain(':b@');
  });

  it('a configuration error quoting DATABASE_URL, NATS_URL or SMTP_URL carries no password', () => {
    for (const env of [{ DATABASE_URL: 'mysql://app:s3cret@db/x' }, { SMTP_URL: 'http://u:s3cret@mail' }, { NATS_URL: 'http://u:s3cret@n:4222' }]) {
      let err: unknown;
      try {
        loadConfig(env);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as Error).message).not.toContain('s3cret');
    }
  });

  it('a log line quoting a URL, in its message or its error, carries no password', () => {
    // The service's logger, writing to a stream we read.
    const out: string[] = [];
    const stream = new Writable({ write: (c, _e, cb) => (out.push(String(c)), cb()) });
    const log = createLogger({ level: 'info', name: 'test', stream });
    log.error({ err: new Error('connect ECONNREFUSED postgres://app:s3cret@db:5432/x'), url: 'nats://tok3n@n:4222' }, 'cannot reach postgres://app:s3cret@db/x');
    const text = out.join('');
    expect(text).not.toContain('s3cret');
    expect(text).not.toContain('tok3n');
    expect(JSON.parse(text)).toMatchObject({ msg: 'cannot reach postgres://app:***@db/x', url: 'nats://***@n:4222', err: { type: 'Error', message: 'connect ECONNREFUSED postgres://app:***@db:5432/x' } });
  });

  it('the scripts redact DATABASE_URL and NATS_URL in what they print (scripts/lib/common.sh redact_url)', () => {
    const common = path.join(__dirname, '../../../scripts/lib/common.sh');
    const r = spawnSync('bash', ['-c', `source "${common}"; redact_url "$1"`, '_', 'postgres://app:s3cret@db:5432/x nats://tok3n@n1:4222,nats://u:pw@n2:4222'], { encoding: 'utf8' });
    expect(r.stdout).toBe('postgres://app:***@db:5432/x nats://***@n1:4222,nats://u:***@n2:4222');
  });
});
