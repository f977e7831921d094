import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import type Koa from 'koa';
import { startStack, Stack } from '../support/stack';
import { loadConfig } from '../../lib/config';

/**
 * Issue 39 (Low): /metrics answered anyone who reached the API port. Without METRICS_TOKEN it
 * answers a client on this host that no proxy forwarded; with it, only a request bearing it.
 */
describe('who may read /metrics on the API port', () => {
  // One stack: the token's app is the same app built with the metrics settings METRICS_TOKEN gives.
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ worker: false, relay: false });
  });
  afterAll(async () => {
    await s.stop();
  });

  describe('without METRICS_TOKEN', () => {
    it('answers a client on loopback', async () => {
      const res = await request(s.app.callback()).get('/metrics');
      expect(res.status).toBe(200);
      expect(res.text).toContain('data_import_http_requests_total');
    });

    it('refuses a request a proxy forwarded (a load balancer on this host)', async () => {
      // Issue 47: X-Real-IP alone (nginx's default) was answered; every forwarding header is refused.
      const headers = [
        ['X-Forwarded-For', '203.0.113.7'], ['Forwarded', 'for=203.0.113.7'], ['X-Real-IP', '203.0.113.7'],
        ['X-Client-IP', '203.0.113.7'], ['True-Client-IP', '203.0.113.7'], ['CF-Connecting-IP', '203.0.113.7'],
        ['X-Forwarded-Host', 'example.org'], ['Via', '1.1 proxy'],
      ] as const;
      for (const [name, value] of headers) {
        const res = await request(s.app.callback()).get('/metrics').set(name, value);
        expect([res.status, res.body.code, res.headers['www-authenticate']]).toEqual([401, 'authentication_failed', 'Bearer realm="metrics"']);
        expect(res.text).not.toContain('data_import_');
      }
    });

    it('refuses a client on another address', async () => {
      // A listener on every address, asked through a non-loopback address of this host when it has one.
      const server = http.createServer(s.app.callback());
      await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
      try {
        const { port } = server.address() as AddressInfo;
        const addresses = Object.values((await import('node:os')).networkInterfaces()).flat().filter((a) => a && a.family === 'IPv4' && !a.internal);
        if (addresses.length === 0) return; // no address beside loopback on this machine: nothing to ask through
        const res = await fetch(`http://${addresses[0]!.address}:${port}/metrics`);
        expect(res.status).toBe(401);
        expect(((await res.json()) as { code: string }).code).toBe('authentication_failed');
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    });
  });

  describe('with METRICS_TOKEN', () => {
    const token = 'metrics-token-of-this-test-0123456789';
    let app: Koa;
    beforeAll(() => {
      const metrics = loadConfig({ APP_ENV: 'test', METRICS_TOKEN: token }).metrics;
      expect(metrics.token).toBe(token);
      app = s.appWith({ ...s.config, metrics });
    });

    it('answers only a request bearing it, from loopback too', async () => {
      expect((await request(app.callback()).get('/metrics')).status).toBe(401);
      expect((await request(app.callback()).get('/metrics').set('Authorization', 'Bearer wrong-token-0123456789')).status).toBe(401);
      const ok = await request(app.callback()).get('/metrics').set('Authorization', `Bearer ${token}`);
      expect(ok.status).toBe(200);
      expect(ok.text).toContain('data_import_http_requests_total');
    });
  });
});
