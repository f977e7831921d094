import { spawnSync } from 'node:child_process';
import path from 'node:path';
import request from 'supertest';
import type Koa from 'koa';
import { eventually, startStack, Stack } from '../support/stack';
import { uniqueAccount } from '../support/fixtures';
import { createSupplier } from '../../suppliers/store';
import { createOrganisation, grantSupplier, issueApiKey, revokeApiKey } from '../../auth/store';
import type { Config } from '../../lib/config';
import { signJwt } from '../../auth/jwt';

const OBTAIN = 'mutation($input: ObtainJSONWebTokenInput!) { obtainKrakenToken(input: $input) { token refreshToken refreshExpiresIn payload } }';

describe('authentication of the REST API with tokens from the GraphQL endpoint', () => {
  let s: Stack;
  let app: Koa;
  let keyA: { id: string; key: string };
  let keyB: { id: string; key: string };

  /** The app over the stack's dependencies, with config overrides. */
  async function appWith(auth: Partial<Config['auth']> = {}): Promise<Koa> {
    return s.appWith({ ...s.config, auth: { ...s.config.auth, ...auth } } as Config);
  }

  const gql = (a: Koa, input: Record<string, unknown>) => request(a.callback()).post('/v1/graphql/').send({ query: OBTAIN, variables: { input } });

  async function tokenFor(a: Koa, key: string): Promise<{ token: string; refreshToken: string; refreshExpiresIn: number; payload: Record<string, unknown> }> {
    const res = await gql(a, { APIKey: key });
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    return res.body.data.obtainKrakenToken;
  }

  const errorCodeOf = (res: request.Response) => res.body.errors?.[0]?.extensions?.errorCode;

  beforeAll(async () => {
    // The token endpoint's buckets are in the database, shared by every app of this file: a
    // default limit this file's many token requests stay under (the limit's own tests set theirs).
    s = await startStack({ worker: false, relay: false, env: { AUTH_TOKEN_RATE_LIMIT_PER_MINUTE: '100000', AUTH_TOKEN_RATE_LIMIT_BURST: '10000' } });
    app = await appWith();
    await createSupplier(s.t.db, 'OTHER_ENERGY', { status: 'Ongoing' });
    await createOrganisation(s.t.db, 'ORG_A');
    await createOrganisation(s.t.db, 'ORG_B');
    await grantSupplier(s.t.db, 'ORG_A', 'DEMO_ENERGY');
    await grantSupplier(s.t.db, 'ORG_B', 'OTHER_ENERGY');
    keyA = await issueApiKey(s.t.db, 'ORG_A');
    keyB = await issueApiKey(s.t.db, 'ORG_B');
  });
  afterAll(async () => {
    await s.stop();
  });

  it('obtains a token for an API key: a JWT naming the key and organisation, and a refresh token', async () => {
    const t = await tokenFor(app, keyA.key);
    expect(t.token.split('.')).toHaveLength(3);
    expect(t.payload).toEqual({ sub: keyA.id, org: 'ORG_A', iss: 'data-import', iat: expect.any(Number), exp: (t.payload.iat as number) + 3600, jti: expect.any(String), fam: expect.any(String) });
    expect(t.refreshExpiresIn).toBe((t.payload.iat as number) + 7 * 24 * 3600);
  });

  it('validates, creates and reads the status with Token, JWT and bare credentials', async () => {
    const { token } = await tokenFor(app, keyA.key);
    const http = request(app.callback());
    const account = uniqueAccount('AUTH-1');
    const v = await http.post('/v2/data-import/accounts/validate/').set('Authorization', `Token ${token}`).send(account);
    expect(v.status).toBe(200);
    expect(v.body).toEqual({ warnings: expect.any(Array) });
    const c = await http.post('/v2/data-import/accounts/').set('Authorization', `JWT ${token}`).send(account);
    expect(c.status).toBe(201);
    const st = await http.get('/v2/data-import/accounts/DEMO_ENERGY/AUTH-1/').set('Authorization', token);
    expect(st.status).toBe(200);
    expect(st.body.status).toEqual(expect.stringMatching(/^(PENDING|IN_PROGRESS)$/));
  });

  it('answers 401 not_authenticated without credentials, with WWW-Authenticate: Token', async () => {
    const res = await request(app.callback()).get('/v2/data-import/accounts/DEMO_ENERGY/AUTH-1/');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: expect.any(String), code: 'not_authenticated' });
    expect(res.headers['www-authenticate']).toBe('Token');
  });

  it('answers 401 authentication_failed for garbage and for a tampered token', async () => {
    const { token } = await tokenFor(app, keyA.key);
    const [h, p, sig] = token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...claims, org: 'ORG_B' })).toString('base64url')}.${sig}`;
    const flipped = `${h}.${p}.${sig.slice(0, -2)}${sig.endsWith('AA') ? 'BB' : 'AA'}`;
    for (const bad of ['garbage', forged, flipped]) {
      const res = await request(app.callback()).get('/v2/data-import/accounts/DEMO_ENERGY/AUTH-1/').set('Authorization', `Token ${bad}`);
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('authentication_failed');
      expect(res.headers['www-authenticate']).toBe('Token');
    }
  });

  it('answers 401 authentication_failed once the token has expired', async () => {
    // 2 s, not 1: iat is whole seconds, so a 1 s token issued late in its second expired before its first use.
    const shortLived = await appWith({ tokenTtlSeconds: 2 });
    const { token } = await tokenFor(shortLived, keyA.key);
    const ok = await request(shortLived.callback()).get('/v2/data-import/accounts/DEMO_ENERGY/NONE/').set('Authorization', `Token ${token}`);
    expect(ok.status).toBe(404);
    await new Promise((r) => setTimeout(r, 3100));
    const res = await request(shortLived.callback()).get('/v2/data-import/accounts/DEMO_ENERGY/NONE/').set('Authorization', `Token ${token}`);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('authentication_failed');
  });

  it('rotates refresh tokens: the new pair works, the used refresh token is refused with KT-CT-1135', async () => {
    const first = await tokenFor(app, keyA.key);
    const second = await gql(app, { refreshToken: first.refreshToken });
    expect(second.body.errors).toBeUndefined();
    const next = second.body.data.obtainKrakenToken;
    expect(next.refreshToken).not.toBe(first.refreshToken);
    const call = await request(app.callback()).get('/v2/data-import/accounts/DEMO_ENERGY/NONE/').set('Authorization', `Token ${next.token}`);
    expect(call.status).toBe(404);

    const replay = await gql(app, { refreshToken: first.refreshToken });
    expect(replay.body.data.obtainKrakenToken).toBeNull();
    expect(errorCodeOf(replay)).toBe('KT-CT-1135');
    // The replay revoked the family: the newer refresh token is refused too.
    expect(errorCodeOf(await gql(app, { refreshToken: next.refreshToken }))).toBe('KT-CT-1135');
  });

  it('refuses the access tokens of a refresh family revoked by reuse, within the grant cache time, and no other family\'s', async () => {
    const first = await tokenFor(app, keyA.key);
    const next = (await gql(app, { refreshToken: first.refreshToken })).body.data.obtainKrakenToken;
    expect(next.payload.fam).toBe(first.payload.fam);
    const other = await tokenFor(app, keyA.key);
    expect(other.payload.fam).not.toBe(first.payload.fam);
    const call = (token: string) => request(app.callback()).get('/v2/data-import/accounts/DEMO_ENERGY/NONE/').set('Authorization', `Token ${token}`);
    expect((await call(first.token)).status).toBe(404);
    expect((await call(next.token)).status).toBe(404);

    // The used refresh token presented again: the store revokes the family.
    expect(errorCodeOf(await gql(app, { refreshToken: first.refreshToken }))).toBe('KT-CT-1135');
    for (const token of [first.token, next.token]) {
      const res = await eventually(async () => {
        const r = await call(token);
        return r.status === 401 ? r : undefined;
      }, s.config.auth.grantCacheMs + 30_000);
      expect(res.body.code).toBe('authentication_failed');
      expect(res.headers['www-authenticate']).toBe('Token');
    }
    // The same key's other family, and the key itself, keep working.
    expect((await call(other.token)).status).toBe(404);
    expect((await tokenFor(app, keyA.key)).token).toEqual(expect.any(String));
  });

  it('answers KT-CT-1134 for an expired refresh token and KT-CT-1139 for an unknown key', async () => {
    const t = await tokenFor(app, keyA.key);
    await s.t.db('refresh_tokens').where({ key_id: keyA.id }).whereNull('used_at').update({ expires_at: new Date(Date.now() - 1000) });
    expect(errorCodeOf(await gql(app, { refreshToken: t.refreshToken }))).toBe('KT-CT-1134');
    expect(errorCodeOf(await gql(app, { APIKey: 'dik_not-a-key' }))).toBe('KT-CT-1139');
    expect(errorCodeOf(await gql(app, {}))).toBe('KT-CT-1139');
  });

  it('stops a revoked key and the tokens issued from it within the grant cache time', async () => {
    const org = 'ORG_REVOKE';
    await createOrganisation(s.t.db, org);
    await grantSupplier(s.t.db, org, 'DEMO_ENERGY');
    const k = await issueApiKey(s.t.db, org);
    const { token, refreshToken } = await tokenFor(app, k.key);
    const call = () => request(app.callback()).get('/v2/data-import/accounts/DEMO_ENERGY/NONE/').set('Authorization', `Token ${token}`);
    expect((await call()).status).toBe(404);

    expect(await revokeApiKey(s.t.db, k.id)).toBe(true);
    // Refused once the grant cache has let go of the key (AUTH_GRANT_CACHE_MS): waited for with a
    // bound, not timed (a loaded machine delays the polls, not the revocation).
    const res = await eventually(async () => {
      const r = await call();
      return r.status === 401 ? r : undefined;
    }, s.config.auth.grantCacheMs + 30_000);
    expect(res.body.code).toBe('authentication_failed');
    expect(errorCodeOf(await gql(app, { APIKey: k.key }))).toBe('KT-CT-1139');
    expect(errorCodeOf(await gql(app, { refreshToken }))).toBe('KT-CT-1135');
  });

  describe('a supplier outside the organisation grant behaves exactly like an unknown one', () => {
    it('validate: import_supplier_not_found, as for a supplier that does not exist', async () => {
      const { token } = await tokenFor(app, keyB.key);
      const http = request(app.callback());
      const other = await http.post('/v2/data-import/accounts/validate/').set('Authorization', `Token ${token}`).send(uniqueAccount('AUTH-B-1'));
      const unknown = await http
        .post('/v2/data-import/accounts/validate/')
        .set('Authorization', `Token ${token}`)
        .send({ ...uniqueAccount('AUTH-B-1'), import_supplier: 'NO_SUCH_ENERGY' });
      expect(other.status).toBe(400);
      expect(other.body.code).toBe('account_failed_validation');
      expect(other.body.errors).toContainEqual({ detail: expect.any(String), code: 'import_supplier_not_found', attr: 'import_supplier' });
      expect(other.body.errors.map((e: { code: string; attr: string }) => [e.code, e.attr])).toEqual(unknown.body.errors.map((e: { code: string; attr: string }) => [e.code, e.attr]));
    });

    it('create: import_process_failed_validation, as for a supplier that does not exist', async () => {
      const { token } = await tokenFor(app, keyB.key);
      const res = await request(app.callback()).post('/v2/data-import/accounts/').set('Authorization', `Token ${token}`).send(uniqueAccount('AUTH-B-2'));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 'import_process_failed_validation', detail: expect.any(String), domain: 'import_process', errors: [] });
      expect(await s.t.db('import_processes').where({ external_account_number: 'AUTH-B-2' }).count({ n: '*' })).toEqual([{ n: '0' }]);
    });

    it("status: 404 not_found for organisation A's existing import", async () => {
      const { token } = await tokenFor(app, keyB.key);
      const res = await request(app.callback()).get('/v2/data-import/accounts/DEMO_ENERGY/AUTH-1/').set('Authorization', `Token ${token}`);
      const unknown = await request(app.callback()).get('/v2/data-import/accounts/NO_SUCH_ENERGY/AUTH-1/').set('Authorization', `Token ${token}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: expect.any(String), code: 'not_found' });
      expect(res.body).toEqual(unknown.body);
    });
  });

  it('throttles an organisation past its bucket with 429 throttled and Retry-After, leaving others alone', async () => {
    const limited = await appWith({ rateLimitPerMinute: 1, rateLimitBurst: 2 });
    const a = await tokenFor(limited, keyA.key);
    const b = await tokenFor(limited, keyB.key);
    const call = (token: string) => request(limited.callback()).get('/v2/data-import/accounts/DEMO_ENERGY/NONE/').set('Authorization', `Token ${token}`);
    expect((await call(a.token)).status).toBe(404);
    expect((await call(a.token)).status).toBe(404);
    const res = await call(a.token);
    expect(res.status).toBe(429);
    expect(res.body).toEqual({ detail: expect.any(String), code: 'throttled' });
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await call(b.token)).status).toBe(404);
  });

  it('rate limits the token operation per client address: 429 throttled with Retry-After, before any database work', async () => {
    const limited = await appWith({ tokenRateLimitPerMinute: 1, tokenRateLimitBurst: 2 });
    const before = Number((await s.t.db('refresh_tokens').count({ n: '*' }))[0]!.n);
    expect((await gql(limited, { APIKey: keyA.key })).status).toBe(200);
    expect((await gql(limited, { APIKey: 'dik_unknown' })).status).toBe(200);
    const res = await gql(limited, { APIKey: keyA.key });
    expect(res.status).toBe(429);
    expect(res.body).toEqual({ detail: expect.any(String), code: 'throttled' });
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // The refused exchange wrote no refresh token; another limit (the default's) has its own buckets.
    expect(Number((await s.t.db('refresh_tokens').count({ n: '*' }))[0]!.n)).toBe(before + 1);
    expect((await gql(app, { APIKey: keyA.key })).status).toBe(200);
  });

  it('keeps the buckets over a restart: a new app over the same database still answers 429 throttled', async () => {
    // A limit of its own (2/min, burst 1): no other test of this file shares these buckets.
    const limits = { tokenRateLimitPerMinute: 2, tokenRateLimitBurst: 1, rateLimitPerMinute: 2, rateLimitBurst: 1 };
    const { token } = await tokenFor(app, keyB.key);
    const before = await appWith(limits);
    const call = (a: Koa) => request(a.callback()).get('/v2/data-import/accounts/OTHER_ENERGY/NONE/').set('Authorization', `Token ${token}`);
    expect((await call(before)).status).toBe(404);
    expect((await call(before)).status).toBe(429);
    expect((await gql(before, { APIKey: 'dik_unknown' })).status).toBe(200);
    expect((await gql(before, { APIKey: 'dik_unknown' })).status).toBe(429);

    // The restarted API: new limiters, same database.
    const after = await appWith(limits);
    const org = await call(after);
    expect(org.status).toBe(429);
    expect(org.body.code).toBe('throttled');
    expect(Number(org.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    const tok = await gql(after, { APIKey: 'dik_unknown' });
    expect(tok.status).toBe(429);
    expect(tok.body.code).toBe('throttled');
    expect(Number(tok.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it('answers 413 payload_too_large for a body over the default 10 MB limit', async () => {
    const { token } = await tokenFor(app, keyA.key);
    const big = JSON.stringify({ ...uniqueAccount('AUTH-BIG'), billing_name: 'x'.repeat(10 * 1024 * 1024) });
    const res = await request(app.callback())
      .post('/v2/data-import/accounts/validate/')
      .set('Authorization', `Token ${token}`)
      .set('Content-Type', 'application/json')
      .send(big);
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('payload_too_large');
  });

  it('answers malformed GraphQL in the GraphQL error shape, never a 500', async () => {
    const http = request(app.callback());
    const badJson = await http.post('/v1/graphql/').set('Content-Type', 'application/json').send('{"query": ');
    expect(badJson.status).toBe(400);
    expect(badJson.body.errors).toEqual([expect.objectContaining({ message: expect.any(String) })]);
    // GraphQL over HTTP: with Accept application/json a document error answers 200 + errors;
    // with application/graphql-response+json, 400 + errors.
    const badQuery = await http.post('/v1/graphql/').send({ query: 'mutation { obtainKrakenToken(' });
    expect(badQuery.status).toBe(200);
    expect(badQuery.body).toEqual({ errors: [expect.objectContaining({ message: expect.stringMatching(/^Syntax Error/) })] });
    const badQueryNew = await http.post('/v1/graphql/').set('Accept', 'application/graphql-response+json').send({ query: 'mutation { obtainKrakenToken(' });
    expect(badQueryNew.status).toBe(400);
    expect(JSON.parse(badQueryNew.text).errors).toHaveLength(1);
    const unknownField = await http.post('/v1/graphql/').send({ query: '{ nope }' });
    expect(unknownField.status).toBe(200);
    expect(unknownField.body).toEqual({ errors: [expect.objectContaining({ message: expect.stringContaining('nope') })] });
    const noQuery = await http.post('/v1/graphql/').send({});
    expect(noQuery.status).toBe(400);
    expect(noQuery.body.errors).toHaveLength(1);
  });

  it('runs no token operation of a request that holds more than one (graphql_too_many_token_operations) or too many tokens (graphql_document_too_costly)', async () => {
    const rows = async () => Number((await s.t.db('refresh_tokens').count<{ count: string }[]>('* as count'))[0]!.count);
    const before = await rows();
    // An app of its own: its token buckets are fresh (AUTH_TOKEN_RATE_LIMIT_BURST 30 per address).
    const fresh = await appWith();
    const http = request(fresh.callback());
    // Compact, as an attacker writes it: 1,000 aliases fit in the 64 KiB body.
    const aliased = (n: number) => `mutation{${Array.from({ length: n }, (_, i) => `t${i}:obtainKrakenToken(input:{APIKey:"${n === 2 ? keyA.key : 'x'}"}){token}`).join(' ')}}`;
    for (const n of [2, 1000]) {
      const res = await http.post('/v1/graphql/').send({ query: aliased(n) });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe(n === 2 ? 'graphql_too_many_token_operations' : 'graphql_document_too_costly');
      expect(res.body.data).toBeUndefined();
    }
    const fragment = await http.post('/v1/graphql/').send({
      query: `mutation { ...T a: obtainKrakenToken(input: {APIKey: "${keyA.key}"}) { token } } fragment T on Mutation { obtainKrakenToken(input: {APIKey: "${keyA.key}"}) { token } }`,
    });
    expect(fragment.status).toBe(400);
    expect(fragment.body.code).toBe('graphql_too_many_token_operations');
    // Not one refresh token was issued by the refused requests.
    expect(await rows()).toBe(before);
    // One operation still gets its token.
    await tokenFor(fresh, keyA.key);
    expect(await rows()).toBe(before + 1);
  });

  it('refuses introspection and gives no field suggestions outside development (GRAPHQL_INTROSPECTION unset, APP_ENV=test)', async () => {
    const http = request(app.callback());
    const intro = await http.post('/v1/graphql/').send({ query: '{ __type(name: "ObtainJSONWebTokenInput") { inputFields { name } } }' });
    expect(intro.body.data).toBeUndefined();
    expect(intro.body.errors[0].message).toMatch(/introspection/i);
    const schema = await http.post('/v1/graphql/').send({ query: '{ __schema { types { name } } }' });
    expect(schema.body.data).toBeUndefined();
    expect(schema.body.errors[0].message).toMatch(/introspection/i);
    const typo = await http.post('/v1/graphql/').send({ query: 'mutation { obtainKrakenTokn(input: {APIKey: "x"}) { token } }' });
    expect(typo.body.errors[0].message).toMatch(/obtainKrakenTokn/);
    expect(JSON.stringify(typo.body)).not.toMatch(/Did you mean|obtainKrakenToken\b/);
  });

  it('answers introspection and suggests fields where GRAPHQL_INTROSPECTION is on (the default of APP_ENV=development)', async () => {
    const dev = await appWith({ graphqlIntrospection: true });
    const http = request(dev.callback());
    const res = await http.post('/v1/graphql/').send({ query: '{ __type(name: "ObtainJSONWebTokenInput") { inputFields { name } } }' });
    expect(res.status).toBe(200);
    expect(res.body.data.__type.inputFields.map((f: { name: string }) => f.name)).toEqual(['APIKey', 'refreshToken']);
    const typo = await http.post('/v1/graphql/').send({ query: 'mutation { obtainKrakenTokn(input: {APIKey: "x"}) { token } }' });
    expect(typo.body.errors[0].message).toMatch(/Did you mean "obtainKrakenToken"/);
  });

  it('keeps health endpoints and API documents open', async () => {
    const http = request(app.callback());
    expect((await http.get('/healthz')).status).toBe(200);
    expect((await http.get('/metrics')).status).toBe(200);
    const openapi = await http.get('/openapi.json');
    expect(openapi.status).toBe(200);
    expect(openapi.body.openapi).toBe('3.1.0');
    const asyncapi = await http.get('/asyncapi.json');
    expect(asyncapi.status).toBe(200);
    expect(asyncapi.body.asyncapi).toBe('3.0.0');
  });

  it.each(['production', 'development', 'test'])('refuses to start the API without a signing key (APP_ENV=%s), naming AUTH_SIGNING_KEY', (APP_ENV) => {
    const root = path.join(__dirname, '../..');
    const env = { ...process.env, APP_ENV, AUTH_SIGNING_KEY: '' };
    const r = spawnSync(process.execPath, [path.join(root, 'node_modules/tsx/dist/cli.mjs'), path.join(root, 'api/main.ts')], { env, encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^configuration error: AUTH_SIGNING_KEY: must be set/m);
  });

  describe('forged and out-of-bounds tokens (issue 39, finding 1)', () => {
    /** The development key earlier versions signed with when AUTH_SIGNING_KEY was unset: published in their code. */
    const PUBLISHED_KEY = 'development-only-signing-key-do-not-use-in-production';
    const now = () => Math.floor(Date.now() / 1000);
    const claims = (extra: Record<string, unknown> = {}) => ({ sub: keyA.id, org: 'ORG_A', iss: 'data-import', iat: now(), exp: now() + 600, jti: 'forged', ...extra });
    const list = (token: string) => request(app.callback()).get('/v2/data-import/accounts/DEMO_ENERGY/NONE/').set('Authorization', `Token ${token}`);

    it('control: a token signed with the stack\'s own key and the lifetime the service issues passes', async () => {
      expect((await list(signJwt(claims() as never, s.config.auth.signingKey!))).status).toBe(404);
    });

    it('refuses a token forged with the old built-in key: 401 authentication_failed', async () => {
      const res = await list(signJwt(claims({ exp: Date.parse('2100-01-01T00:00:00Z') / 1000 }) as never, PUBLISHED_KEY));
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: 'The token is not valid.', code: 'authentication_failed' });
      expect((await list(signJwt(claims() as never, PUBLISHED_KEY))).status).toBe(401);
    });

    it('refuses exp in 2100 and exp=1e308 even with the right key: 401 authentication_failed', async () => {
      for (const exp of [Date.parse('2100-01-01T00:00:00Z') / 1000, 1e308]) {
        const res = await list(signJwt(claims({ exp }) as never, s.config.auth.signingKey!));
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ detail: 'The token is not valid.', code: 'authentication_failed' });
      }
    });

    it('refuses a second spelling of a valid signature (non-canonical base64url): 401 authentication_failed', async () => {
      const [h, p, sig] = signJwt(claims() as never, s.config.auth.signingKey!).split('.') as [string, string, string];
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
      const twin = `${sig.slice(0, -1)}${alphabet[alphabet.indexOf(sig.at(-1)!) ^ 1]}`;
      const res = await list(`${h}.${p}.${twin}`);
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('authentication_failed');
    });
  });
});
