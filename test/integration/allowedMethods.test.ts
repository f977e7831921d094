import request from 'supertest';
import type Koa from 'koa';
import { startStack, Stack } from '../support/stack';
import { buildOpenApiDocument } from '../../api/openapi';

/**
 * RFC 9110 §15.5.6: a path that exists, asked with a method it does not support, answers 405
 * with `Allow` listing the methods it does support, in the documented error shape. The paths and
 * their methods come from the OpenAPI document, so `Allow` and the document cannot disagree.
 */
const doc = buildOpenApiDocument() as { paths: Record<string, Record<string, unknown>> };

/** Every path of the document with its parameters filled in, and the methods it documents. */
const ROUTES = Object.entries(doc.paths).map(([template, item]) => ({
  template,
  path: template.replace('{import_supplier_code}', 'DEMO_ENERGY').replace('{external_account_number}', 'X-1'),
  documented: Object.keys(item).map((m) => m.toUpperCase()),
}));

/** Methods a client may try; QUERY and TRACE are outside @koa/router's own list (its 501 case). */
const TRIED = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'TRACE', 'QUERY', 'PROPFIND'];

/** What `Allow` must list: the documented methods, and HEAD wherever GET is (HTTP serves HEAD as GET without the body). */
const allowOf = (documented: string[]) => new Set([...documented, ...(documented.includes('GET') ? ['HEAD'] : [])]);
const parseAllow = (header: string | undefined) => new Set((header ?? '').split(',').map((m) => m.trim()).filter(Boolean));

describe('methods a path does not support', () => {
  let s: Stack;
  let app: Koa;

  beforeAll(async () => {
    s = await startStack({ worker: false, relay: false });
    app = s.app;
  });
  afterAll(async () => {
    await s.stop();
  });

  const send = (method: string, path: string) =>
    (request(app.callback()) as unknown as Record<string, (url: string) => request.Test>)[method.toLowerCase()]!(path);

  it('covers every operation of the document', () => {
    expect(ROUTES.map((r) => r.template)).toEqual(
      expect.arrayContaining(['/v1/graphql/', '/v2/data-import/accounts/', '/v2/data-import/accounts/statuses/', '/healthz', '/v1/data-import/all-account-import-processes/{import_supplier_code}/', '/v1/data-import/transactions/create/']),
    );
    // Which operations there are is the registry's (api/operations.ts); openapi.test.ts holds the
    // document and the app's routing table together.
  });

  describe.each(ROUTES)('$template', ({ path, documented }) => {
    const allowed = allowOf(documented);
    const wrong = TRIED.filter((m) => !allowed.has(m));

    // No credentials on purpose: routing decides the method before authentication, so an
    // unauthenticated caller learns only what the public OpenAPI document already says.
    it.each(wrong)('answers %s with 405 method_not_allowed and Allow listing the documented methods', async (method) => {
      const res = await send(method, path);
      expect(res.status).toBe(405);
      expect(parseAllow(res.headers.allow)).toEqual(allowed);
      if (method === 'HEAD') return; // no body to a HEAD
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toEqual({ detail: expect.any(String), code: 'method_not_allowed' });
    });

    it('answers OPTIONS with 200 and the same Allow', async () => {
      const res = await send('OPTIONS', path);
      expect(res.status).toBe(200);
      expect(parseAllow(res.headers.allow)).toEqual(allowed);
    });
  });

  it('serves the token endpoint over POST only, as documented', async () => {
    const res = await request(app.callback()).get('/v1/graphql/').query({ query: '{ ping }' });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('POST');
    expect(res.body.code).toBe('method_not_allowed');
    const post = await request(app.callback()).post('/v1/graphql/').send({ query: '{ ping }' });
    expect(post.status).toBe(200);
    expect(post.body).toEqual({ data: { ping: 'pong' } });
  });

  it.each([
    ['Accept: application/graphql-response+json', { Accept: 'application/graphql-response+json' }, 200, /^application\/graphql-response\+json/],
    ['Accept: application/json', { Accept: 'application/json' }, 200, /^application\/json/],
    ['Accept: text/html', { Accept: 'text/html' }, 406, /^application\/json/],
    ['Content-Type: text/plain', { 'Content-Type': 'text/plain' }, 415, /^application\/json/],
  ] as const)('answers the token endpoint with %s in a status and media type the document lists', async (_what, headers, status, type) => {
    const documented = (doc.paths['/v1/graphql/']!.post as { responses: Record<string, { content?: Record<string, unknown> }> }).responses;
    const res = await request(app.callback()).post('/v1/graphql/').set(headers).send(JSON.stringify({ query: '{ ping }' })).set('Content-Type', headers['Content-Type' as keyof typeof headers] ?? 'application/json');
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(type);
    expect(Object.keys(documented[String(status)]?.content ?? {})).toContain(res.headers['content-type']!.split(';')[0]);
    expect(JSON.parse(res.text)).toEqual(status === 200 ? { data: { ping: 'pong' } } : { errors: [{ message: expect.any(String) }] });
  });

  // The fuzz run's request counter showed every error answer as 404 (Koa's default status while the
  // error is still on its way to errorHandler) and TRACE/QUERY as 501: the metric and the access
  // log must carry the status the client got.
  it('counts error answers under the status the client got in the request metrics', async () => {
    const counters = async () => {
      const text = (await request(app.callback()).get('/metrics')).text;
      const out = new Map<string, number>();
      for (const m of text.matchAll(/^data_import_http_requests_total\{[^}]*method="([A-Z]+)",status="(\d+)"[^}]*\} (\d+)/gm)) {
        out.set(`${m[1]} ${m[2]}`, (out.get(`${m[1]} ${m[2]}`) ?? 0) + Number(m[3]));
      }
      return out;
    };
    const before = await counters();
    const statuses = [
      (await send('TRACE', '/healthz')).status,
      (await request(app.callback()).post('/v1/graphql/').set('Content-Type', 'application/json').send('{')).status,
      (await request(app.callback()).post('/v2/data-import/accounts/validate/').send({})).status,
    ];
    expect(statuses).toEqual([405, 400, 401]);
    const after = await counters();
    const delta = (key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0);
    expect(['TRACE 405', 'TRACE 501', 'POST 400', 'POST 401', 'POST 404'].map((k) => [k, delta(k)])).toEqual([
      ['TRACE 405', 1],
      ['TRACE 501', 0],
      ['POST 400', 1],
      ['POST 401', 1],
      ['POST 404', 0],
    ]);
  });

  it.each(['GET', 'DELETE', 'TRACE', 'QUERY'])('answers %s on an unknown path with 404 not_found and no Allow', async (method) => {
    for (const path of ['/v2/nope', '/v2/data-import/accounts/DEMO_ENERGY/X-1/extra/']) {
      const res = await send(method, path);
      expect(res.status).toBe(404);
      expect(res.headers.allow).toBeUndefined();
      expect(res.body).toEqual({ detail: expect.any(String), code: 'not_found' });
    }
  });
});
