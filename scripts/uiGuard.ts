/**
 * The Temporal Web UI's guard (`npm run up`): `temporal server start-dev` answers any `Host`, so a
 * web page the operator opens elsewhere could reach the UI through a name that resolves to
 * 127.0.0.1 (DNS rebinding) and read or act on every workflow. The dev server's UI listens on a
 * private port; this guard listens where the operator opens it and forwards only requests whose
 * `Host` is a loopback name (localhost, 127.x.x.x, [::1], with any port). Any other is answered 403
 * and never reaches the UI. docs/security.md.
 *
 * Usage: tsx scripts/uiGuard.ts <listen-port> <ui-port>   (both on 127.0.0.1)
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Whether a `Host` header names this machine's loopback (any port). */
export function loopbackHost(host: string | undefined): boolean {
  if (!host) return false;
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d{1,5}))?$/.exec(host.trim().toLowerCase());
  if (!m) return false;
  const name = m[1]!.replace(/\.$/, '');
  if (name === 'localhost' || name === '[::1]') return true;
  return /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.test(name) && name.split('.').every((p) => Number(p) <= 255);
}

/** A server that forwards loopback-Host requests to 127.0.0.1:`uiPort` and refuses the others. */
export function createUiGuard(uiPort: number): http.Server {
  const server = http.createServer((req, res) => {
    if (!loopbackHost(req.headers.host)) {
      res.writeHead(403, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('The Temporal UI answers only a loopback Host (localhost, 127.0.0.1, [::1]).\n');
      return;
    }
    const upstream = http.request({ host: '127.0.0.1', port: uiPort, method: req.method, path: req.url, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('The Temporal UI does not answer.\n');
    });
    req.pipe(upstream);
  });
  // A stalled client holds nothing for long (the UI's own requests are short).
  server.headersTimeout = 10_000;
  server.requestTimeout = 60_000;
  return server;
}

if (require.main === module) {
  const [listen, ui] = process.argv.slice(2).map(Number);
  if (!Number.isInteger(listen) || !Number.isInteger(ui)) {
    process.stderr.write('usage: tsx scripts/uiGuard.ts <listen-port> <ui-port>\n');
    process.exit(2);
  }
  const server = createUiGuard(ui!);
  server.listen(listen, '127.0.0.1', () => {
    process.stdout.write(`Temporal UI guard on http://127.0.0.1:${(server.address() as AddressInfo).port} -> 127.0.0.1:${ui} (loopback Host only)\n`);
  });
  for (const sig of ['SIGTERM', 'SIGINT'] as const) process.on(sig, () => server.close(() => process.exit(0)));
}
