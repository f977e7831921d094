import { createTokenService, TokenError, TokenService } from '../../../auth/tokens';
import { JwtError, signJwt } from '../../../auth/jwt';
import { FakeTokenStore } from './fakeTokenStore';

const SIGNING_KEY = 'unit-test-signing-key-0123456789abcdef';
const KEY = 'dik_unit-test-api-key';

function setup(start = new Date('2026-11-21T10:00:00Z')) {
  const store = new FakeTokenStore();
  store.addKey('key_a', 'ORG_A', KEY);
  let now = start;
  const service: TokenService = createTokenService(store, { signingKey: SIGNING_KEY, tokenTtlSeconds: 3600, refreshTtlSeconds: 7 * 24 * 3600, now: () => now });
  return { store, service, advance: (ms: number) => (now = new Date(now.getTime() + ms)) };
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TokenError);
  return (err as TokenError).code;
}

/** A token signed with the service's key, claims as given (what a holder of the key could make). */
function forged(claims: Record<string, unknown>): string {
  return signJwt({ sub: 'key_a', org: 'ORG_A', iss: 'data-import', jti: 'j', ...claims } as never, SIGNING_KEY);
}

function reasonOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    if (e instanceof JwtError) return e.reason;
    throw e;
  }
  return undefined;
}

describe('token bounds: lifetime and encoding', () => {
  const iat = Date.parse('2026-11-21T10:00:00Z') / 1000;

  it('refuses a token living longer than the service issues (exp in 2100, exp 1e308), or with exp/iat not whole seconds', () => {
    const { service } = setup();
    expect(reasonOf(() => service.verifyAccessToken(forged({ iat, exp: iat + 3600 })))).toBeUndefined();
    expect(reasonOf(() => service.verifyAccessToken(forged({ iat, exp: iat + 3601 })))).toBe('bad_lifetime');
    expect(reasonOf(() => service.verifyAccessToken(forged({ iat, exp: Date.parse('2100-01-01T00:00:00Z') / 1000 })))).toBe('bad_lifetime');
    expect(reasonOf(() => service.verifyAccessToken(forged({ iat, exp: 1e308 })))).toBe('malformed');
    expect(reasonOf(() => service.verifyAccessToken(forged({ iat: 0, exp: iat + 60 })))).toBe('bad_lifetime');
    expect(reasonOf(() => service.verifyAccessToken(forged({ iat, exp: iat + 60.5 })))).toBe('malformed');
    expect(reasonOf(() => service.verifyAccessToken(forged({ iat: 'x', exp: iat + 60 })))).toBe('malformed');
    expect(reasonOf(() => service.verifyAccessToken(forged({ iat, exp: iat })))).toBe('bad_lifetime');
  });

  it('refuses a signature that is not the canonical base64url of the MAC', () => {
    const { service } = setup();
    const token = forged({ iat, exp: iat + 60 });
    const [h, p, sig] = token.split('.') as [string, string, string];
    // 32 bytes: 43 characters, the last carrying 4 bits and 2 unused ones; setting those decodes alike.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(sig.at(-1)!);
    const twin = `${sig.slice(0, -1)}${alphabet[last ^ 1]}`;
    expect(Buffer.from(twin, 'base64url').equals(Buffer.from(sig, 'base64url'))).toBe(true);
    expect(reasonOf(() => service.verifyAccessToken(`${h}.${p}.${sig}`))).toBeUndefined();
    expect(reasonOf(() => service.verifyAccessToken(`${h}.${p}.${twin}`))).toBe('bad_signature');
  });
});

describe('token service', () => {
  it('exchanges an API key for a token whose claims name the key and organisation', async () => {
    const { service, store } = setup();
    const issued = await service.obtainWithApiKey(KEY);
    const iat = Date.parse('2026-11-21T10:00:00Z') / 1000;
    expect(issued.payload).toEqual({ sub: 'key_a', org: 'ORG_A', iss: 'data-import', iat, exp: iat + 3600, jti: expect.stringMatching(/^[0-9a-f-]{36}$/), fam: store.refresh[0]!.family });
    expect(service.verifyAccessToken(issued.token)).toEqual(issued.payload);
    expect(issued.refreshToken).toMatch(/^dirt_[A-Za-z0-9_-]{43}$/);
    expect(issued.refreshExpiresIn).toBe(iat + 7 * 24 * 3600);
    expect(store.keys.get('key_a')!.lastUsedAt).toEqual(new Date('2026-11-21T10:00:00Z'));
  });

  it('refuses an unknown key and a revoked key with KT-CT-1139', async () => {
    const { service, store } = setup();
    expect(await codeOf(service.obtainWithApiKey('dik_nope'))).toBe('KT-CT-1139');
    store.revoke('key_a');
    expect(await codeOf(service.obtainWithApiKey(KEY))).toBe('KT-CT-1139');
  });

  it('rotates the refresh token: the new one works, the used one is refused with KT-CT-1135', async () => {
    const { service } = setup();
    const first = await service.obtainWithApiKey(KEY);
    const second = await service.obtainWithRefreshToken(first.refreshToken);
    expect(second.refreshToken).not.toBe(first.refreshToken);
    expect(second.payload.sub).toBe('key_a');
    expect(await codeOf(service.obtainWithRefreshToken(first.refreshToken))).toBe('KT-CT-1135');
  });

  it('revokes the whole family when a used refresh token comes back', async () => {
    const { service } = setup();
    const first = await service.obtainWithApiKey(KEY);
    const second = await service.obtainWithRefreshToken(first.refreshToken);
    await expect(service.obtainWithRefreshToken(first.refreshToken)).rejects.toBeInstanceOf(TokenError);
    // The legitimate holder's newer token is gone too.
    expect(await codeOf(service.obtainWithRefreshToken(second.refreshToken))).toBe('KT-CT-1135');
  });

  it('answers KT-CT-1134 for an expired refresh token and KT-CT-1135 for an unknown one', async () => {
    const { service, advance } = setup();
    const first = await service.obtainWithApiKey(KEY);
    expect(await codeOf(service.obtainWithRefreshToken('dirt_unknown'))).toBe('KT-CT-1135');
    advance(7 * 24 * 3600 * 1000 + 1000);
    expect(await codeOf(service.obtainWithRefreshToken(first.refreshToken))).toBe('KT-CT-1134');
  });

  it('refuses a refresh token of a revoked key', async () => {
    const { service, store } = setup();
    const first = await service.obtainWithApiKey(KEY);
    store.revoke('key_a');
    expect(await codeOf(service.obtainWithRefreshToken(first.refreshToken))).toBe('KT-CT-1135');
  });

  it('rejects an access token after its lifetime', async () => {
    const { service, advance } = setup();
    const { token } = await service.obtainWithApiKey(KEY);
    advance(3600 * 1000);
    expect(() => service.verifyAccessToken(token)).toThrow(new JwtError('expired'));
  });

  it('rejects a token signed with another key, a tampered payload and alg none', async () => {
    const { service } = setup();
    const { token, payload } = await service.obtainWithApiKey(KEY);
    const reason = (t: string) => {
      try {
        service.verifyAccessToken(t);
      } catch (e) {
        return (e as JwtError).reason;
      }
      return 'accepted';
    };
    expect(reason(signJwt(payload, 'another-signing-key-0123456789abcdef'))).toBe('bad_signature');
    const [h, , s] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...payload, org: 'ORG_B' })).toString('base64url');
    expect(reason(`${h}.${forged}.${s}`)).toBe('bad_signature');
    const none = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    expect(reason(`${none}.${token.split('.')[1]}.${s}`)).toBe('malformed');
    expect(reason('not-a-token')).toBe('malformed');
  });
});
