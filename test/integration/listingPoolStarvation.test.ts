/**
 * Issue 39, finding 3: clients that open the full streamed listing and never read it must not
 * hold the database pool's connections: another organisation's request that needs the database
 * still answers. The real API over real sockets.
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { startStack, Stack } from '../support/stack';
import { createApiServer } from '../../api/server';
import { createSupplier } from '../../suppliers/store';
import { insertGeneratedProcesses } from '../../bench/lib/importProcessRows';

jest.setTimeout(600_000);

/** More sockets than the pool has connections (test databases: 10). */
const SOCKETS = 14;

describe('unread streamed listings and the database pool', () => {
  let s: Stack;
  let server: http.Server;
  let port: number;
  const sockets: net.Socket[] = [];

  beforeAll(async () => {
    s = await startStack({ worker: false, relay: false, env: { REQUEST_TIMEOUT_MS: '8000' } });
    await createSupplier(s.t.db, 'BOOK_ENERGY');
    // ~3.5 MB of listing: far more than the socket buffers of a client that does not read.
    await insertGeneratedProcesses(s.t.db, 'BOOK_ENERGY', 40_000, 'BOOK');
    server = createApiServer(s.config.http, s.app.callback()) as http.Server;
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    for (const so of sockets) so.destroy();
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
    await s?.stop();
  });

  it("another organisation's request answers while more unread listings are open than the pool has connections", async () => {
    const reader = (await s.authHeader('BOOK_ENERGY')).Authorization;
    const firstBytes: Promise<void>[] = [];
    const received: string[] = [];
    for (let i = 0; i < SOCKETS; i++) {
      const so = net.connect(port, '127.0.0.1');
      sockets.push(so);
      so.on('error', () => undefined);
      so.setEncoding('utf8');
      received.push('');
      firstBytes.push(new Promise((r) => so.once('data', (d: string) => ((received[i] += d), so.pause(), r()))));
      so.write(`GET /v1/data-import/all-account-import-processes/BOOK_ENERGY/ HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${reader}\r\n\r\n`);
    }
    // Every listing has started answering, and no client reads any more of it.
    await Promise.all(firstBytes);
    await new Promise((r) => setTimeout(r, 1000));

    const other = (await s.authHeader('DEMO_ENERGY')).Authorization;
    const res = await fetch(`http://127.0.0.1:${port}/v2/data-import/accounts/DEMO_ENERGY/NOT-THERE/`, { headers: { Authorization: other } });
    // The database answered (no such process), instead of 503 after waiting for a connection.
    expect({ status: res.status, code: ((await res.json()) as { code: string }).code }).toEqual({ status: 404, code: 'not_found' });

    // An unread listing is still complete when its client reads it.
    const so = sockets[0]!;
    let text = received[0]!;
    const ended = new Promise<void>((r) => so.on('data', (d: string) => ((text += d), text.endsWith('\r\n0\r\n\r\n') && r())));
    so.resume();
    await ended;
    expect(text.split('{"external_account_number"').length - 1).toBe(40_000);
  });
});
