import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { jsonBody } from '../../../http/middleware/jsonBody';
import { loadConfig } from '../../../lib/config';
import { PayloadBudget } from '../../../lib/payloadBudget';

/** A server whose handler waits for `release` after recording the body's size. */
async function server(budget: PayloadBudget) {
  const seen: number[] = [];
  const gates: Array<() => void> = [];
  const app = new Koa();
  app.use(jsonBody(1000, loadConfig({}).http.json, { budget }));
  app.use(async (ctx) => {
    seen.push(JSON.stringify(ctx.request.body).length);
    await new Promise<void>((r) => gates.push(r));
    ctx.body = { ok: true };
  });
  const s = http.createServer(app.callback());
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(s.address() as AddressInfo).port}/`;
  const post = (body: string) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then((r) => r.status);
  const port = (s.address() as AddressInfo).port;
  return { seen, gates, post, port, close: () => new Promise((r) => { s.closeAllConnections(); s.close(r); }) };
}

const body = (n: number) => JSON.stringify({ pad: 'x'.repeat(n - 10) }); // n bytes of JSON
/** Waits (bounded, 10 s) until `cond` holds: what a request has reached, not a fixed pause (a loaded machine is slow). */
async function until(cond: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not reached within 10 s');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** POSTs `text` chunked (no Content-Length), in two writes; the answer's status. */
function postChunked(url: string, text: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json' }, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    req.write(text.slice(0, 10));
    req.end(text.slice(10));
  });
}

describe('jsonBody: chunked bodies counted by the bytes they carry', () => {
  it('reads a chunked body of the limit past the inline threshold, refuses one byte more with 413', async () => {
    const budget = new PayloadBudget(5000, 20);
    const s = await server(budget);
    const url = `http://127.0.0.1:${s.port}/`;
    try {
      const ok = postChunked(url, body(1000));
      await until(() => s.seen.length === 1);
      expect(s.seen).toEqual([1000]);
      s.gates.shift()!();
      expect(await ok).toBe(200);
      expect(await postChunked(url, body(1001))).toBe(413);
      expect(budget.heldBytes).toBe(0);
    } finally {
      await s.close();
    }
  });
});

describe('jsonBody with a budget', () => {
  it('reads a large body only when the budget has room, and holds it until the request is answered', async () => {
    const budget = new PayloadBudget(100, 20);
    const s = await server(budget);
    try {
      const first = s.post(body(80));
      await until(() => s.seen.length === 1);
      const second = s.post(body(60));
      await until(() => budget.waiting === 1);
      expect(s.seen).toEqual([80]); // the second waits: 80 + 60 > 100
      expect(budget.waiting).toBe(1);
      s.gates.shift()!();
      expect(await first).toBe(200);
      await until(() => s.seen.length === 2);
      expect(s.seen).toEqual([80, 60]);
      s.gates.shift()!();
      expect(await second).toBe(200);
      expect(budget.heldBytes).toBe(0);
    } finally {
      await s.close();
    }
  });

  it('small bodies never wait', async () => {
    const budget = new PayloadBudget(100, 20);
    const s = await server(budget);
    try {
      const big = s.post(body(100));
      const small = s.post(body(15));
      await until(() => s.seen.length === 2);
      expect(s.seen.sort()).toEqual([100, 15].sort());
      s.gates.splice(0).forEach((g) => g());
      expect(await Promise.all([big, small])).toEqual([200, 200]);
    } finally {
      await s.close();
    }
  });
});
