import { ConfigError, loadConfig, requireApiSettings } from '../../../lib/config';
import { createTokenService } from '../../../auth/tokens';
import { FakeTokenStore } from './fakeTokenStore';

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
  it('turns GraphQL introspection on only in development unless GRAPHQL_INTROSPECTION says otherwise', () => {
    const key = { AUTH_SIGNING_KEY: 'k'.repeat(32) };
    expect(loadConfig({ APP_ENV: 'development' }).auth.graphqlIntrospection).toBe(true);
    expect(loadConfig({ APP_ENV: 'test' }).auth.graphqlIntrospection).toBe(false);
    expect(loadConfig({ APP_ENV: 'production', ...key }).auth.graphqlIntrospection).toBe(false);
    expect(loadConfig({ APP_ENV: 'production', GRAPHQL_INTROSPECTION: 'true', ...key }).auth.graphqlIntrospection).toBe(true);
    expect(loadConfig({ APP_ENV: 'development', GRAPHQL_INTROSPECTION: 'false' }).auth.graphqlIntrospection).toBe(false);
  });

  it('refuses production without a signing key, naming AUTH_SIGNING_KEY', () => {
    expect(configErrorOf({ APP_ENV: 'production' })?.variable).toBe('AUTH_SIGNING_KEY');
  });

  it('refuses production with a signing key shorter than 32 characters', () => {
    expect(configErrorOf({ APP_ENV: 'production', AUTH_SIGNING_KEY: 'x'.repeat(31) })?.variable).toBe('AUTH_SIGNING_KEY');
  });

  it('accepts production with a 32-character signing key', () => {
    expect(loadConfig({ APP_ENV: 'production', AUTH_SIGNING_KEY: 'k'.repeat(32) }).auth.signingKey).toBe('k'.repeat(32));
  });

  it('has no built-in signing key: unset in every APP_ENV, and the API refuses to start without one', () => {
    for (const APP_ENV of ['development', 'test']) {
      const config = loadConfig({ APP_ENV });
      expect(config.auth.signingKey).toBeUndefined();
      expect(() => requireApiSettings(config)).toThrow(expect.objectContaining({ variable: 'AUTH_SIGNING_KEY', message: expect.stringMatching(/^AUTH_SIGNING_KEY: must be set/) }));
    }
    expect(() => requireApiSettings(loadConfig({ AUTH_SIGNING_KEY: 'k'.repeat(32) }))).not.toThrow();
  });

  it('makes no token service without a key', () => {
    expect(() => createTokenService(new FakeTokenStore(), { signingKey: undefined, tokenTtlSeconds: 3600, refreshTtlSeconds: 3600 })).toThrow(ConfigError);
  });

  it('refuses a short key and the development key earlier versions published, in every APP_ENV', () => {
    expect(configErrorOf({ APP_ENV: 'development', AUTH_SIGNING_KEY: 'x'.repeat(31) })?.variable).toBe('AUTH_SIGNING_KEY');
    for (const APP_ENV of ['development', 'test', 'production']) {
      const e = configErrorOf({ APP_ENV, AUTH_SIGNING_KEY: 'development-only-signing-key-do-not-use-in-production' });
      expect(e?.variable).toBe('AUTH_SIGNING_KEY');
      expect(e?.message).toMatch(/published/);
    }
  });

  it('defaults the burst to ten seconds of the rate and the grant cache to one second', () => {
    const c = loadConfig({ RATE_LIMIT_PER_MINUTE: '600' });
    expect(c.auth.rateLimitBurst).toBe(100);
    expect(c.auth.grantCacheMs).toBe(1000);
    expect(c.http.bodyLimitBytes).toBe(10 * 1024 * 1024);
  });
});
