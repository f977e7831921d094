import { ConfigError, loadConfig } from '../../../lib/config';

function configErrorOf(env: Record<string, string>): ConfigError | undefined {
  try {
    loadConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  return undefined;
}

describe('authentication configuration', () => {
  it('refuses production without a signing key, naming AUTH_SIGNING_KEY', () => {
    expect(configErrorOf({ APP_ENV: 'production' })?.variable).toBe('AUTH_SIGNING_KEY');
  });

  it('refuses production with a signing key shorter than 32 characters', () => {
    expect(configErrorOf({ APP_ENV: 'production', AUTH_SIGNING_KEY: 'x'.repeat(31) })?.variable).toBe('AUTH_SIGNING_KEY');
  });

  it('accepts production with a 32-character signing key', () => {
    expect(loadConfig({ APP_ENV: 'production', AUTH_SIGNING_KEY: 'k'.repeat(32) }).auth.signingKey).toBe('k'.repeat(32));
  });

  it('defaults the burst to ten seconds of the rate and the grant cache to one second', () => {
    const c = loadConfig({ RATE_LIMIT_PER_MINUTE: '600' });
    expect(c.auth.rateLimitBurst).toBe(100);
    expect(c.auth.grantCacheMs).toBe(1000);
    expect(c.http.bodyLimitBytes).toBe(10 * 1024 * 1024);
  });
});
