import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createUiGuard, loopbackHost } from '../../../scripts/uiGuard';

const listen = (s: http.Server) => new Promise<number>((r) => s.listen(0, '127.0.0.1', () => r((s.address() as AddressInfo).port)));
const close = (s: http.Server) => new Promise((r) => { s.closeAllConnections(); s.close(r); });

/** GET / through `port` with the given Host header: status and body. */
function get(port: number, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: '/namespaces/default/workflows', headers: { host }, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('Temporal UI guard (npm run up)', () => {
  it('tells loopback Host names from the others', () => {
    for (const h of ['localhost', 'localhost:8233', '127.0.0.1', '127.0.0.1:8233', '127.1.2.3:80', '[::1]', '[::1]:8233', 'LOCALHOST.:8233']) expect([h, loopbackHost(h)]).toEqual([h, true]);
    for (const h of [undefined, '', 'evil.example', 'evil.example:8233', '127.0.0.1.evil.example', 'localhost.evil.example', '0.0.0.0:8233', '192.168.1.10', '127.0.0.256', '[::2]', 'localhost:8233:1'])
      expect([h, loopbackHost(h)]).toEqual([h, false]);
  });

  it('forwards a loopback Host to the UI and refuses any other with 403 before it reaches the UI', async () => {
    const seen: string[] = [];
    const ui = http.createServer((req, res) => {
      seen.push(`${req.headers.host} ${req.url}`);
      res.end('the UI');
    });
    const uiPort = await listen(ui);
    const guard = createUiGuard(uiPort);
    const port = await listen(guard);
    try {
      expect(await get(port, `127.0.0.1:${port}`)).toEqual({ status: 200, body: 'the UI' });
      expect(await get(port, `localhost:${port}`)).toEqual({ status: 200, body: 'the UI' });
      expect((await get(port, `evil.example:${port}`)).status).toBe(403);
      expect((await get(port, 'rebound.attacker.test')).status).toBe(403);
      expect(seen).toEqual([`127.0.0.1:${port} /namespaces/default/workflows`, `localhost:${port} /namespaces/default/workflows`]);
    } finally {
      await close(guard);
      await close(ui);
    }
  });
});
