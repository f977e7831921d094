import Koa from 'koa';
import request from 'supertest';
import pino from 'pino';
import { errorHandler } from '../../../http/middleware/errors';
import { jsonResponse } from '../../../http/middleware/jsonResponse';

/** An answer nested `n` deep: more than JSON.stringify's recursion can write. */
function deep(n: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < n; i++) v = [v];
  return v;
}

function app(body: () => unknown): Koa {
  const a = new Koa();
  a.silent = true;
  a.use(errorHandler(pino({ level: 'silent' })));
  a.use(jsonResponse());
  a.use((ctx) => {
    ctx.body = body();
  });
  return a;
}

describe('jsonResponse', () => {
  it('writes an answer as Koa would, JSON with its content type', async () => {
    const r = await request(app(() => ({ a: [1, 'x'] })).callback()).get('/');
    expect([r.status, r.headers['content-type'], r.text]).toEqual([200, 'application/json; charset=utf-8', '{"a":[1,"x"]}']);
  });

  it('answers one that JSON.stringify cannot write with the documented 500 in JSON, never plain text (issue 47)', async () => {
    for (const body of [() => deep(200_000), () => ({ n: 1n })]) {
      const r = await request(app(body).callback()).get('/');
      expect([r.status, r.headers['content-type']]).toEqual([500, 'application/json; charset=utf-8']);
      expect(r.body).toMatchObject({ code: 'internal_error' });
    }
  });

  it('leaves text and buffers alone', async () => {
    const r = await request(app(() => Buffer.from('raw')).callback()).get('/');
    expect([r.status, r.text === undefined ? r.body.toString() : r.text]).toEqual([200, 'raw']);
  });
});
