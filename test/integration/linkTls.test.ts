/**
 * TLS on the service's links by configuration (issue 39), against real servers:
 *   Temporal  mutual TLS (TEMPORAL_TLS_CA/CERT/KEY, TEMPORAL_TLS_SERVER_NAME): the test's Temporal dev
 *             server behind a TLS front that asks for a client certificate of the test's CA (as the
 *             hosts harness puts HAProxy in front of its dev server), reached by the client
 *             connection and by a worker's NativeConnection; refused without the certificate
 *   SMTP      STARTTLS required by default: a relay that offers none is refused, one that does is
 *             used with its certificate checked against SMTP_TLS_CA; plain SMTP only when
 *             SMTP_REQUIRE_TLS=false, and only to loopback
 *   API       HTTPS with API_TLS_CERT/API_TLS_KEY
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import https from 'node:https';
import { Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { SMTPServer } from 'smtp-server';
import { loadConfig } from '../../lib/config';
import { temporalConnectionOptions } from '../../lib/temporal';
import { createMailTransport } from '../../emails/transport';
import { createApiServer } from '../../api/server';
import { TEST_TEMPORAL_ADDRESS } from '../support/env';
import { makeTlsFiles } from '../support/tlsFiles';
import { configErrorVariable } from '../support/configError';

jest.setTimeout(60_000);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'di-link-tls-'));
const files = makeTlsFiles(dir);
const closers: (() => Promise<void> | void)[] = [];

afterAll(async () => {
  for (const c of closers.reverse()) await c();
  fs.rmSync(dir, { recursive: true, force: true });
});

const listening = (s: net.Server) => new Promise<number>((resolve) => s.listen(0, '127.0.0.1', () => resolve((s.address() as net.AddressInfo).port)));

describe('Temporal over mutual TLS', () => {
  let address = '';
  beforeAll(async () => {
    const [host, port] = TEST_TEMPORAL_ADDRESS.split(':');
    // The TLS front: mutual TLS with the test CA, ALPN h2 (gRPC), each session piped to the dev server.
    const front = tls.createServer({ key: fs.readFileSync(files.serverKey), cert: fs.readFileSync(files.serverCert), ca: fs.readFileSync(files.ca), requestCert: true, rejectUnauthorized: true, ALPNProtocols: ['h2'] }, (socket) => {
      const upstream = net.connect({ host, port: Number(port) });
      socket.pipe(upstream).pipe(socket);
      const end = () => {
        socket.destroy();
        upstream.destroy();
      };
      socket.on('error', end);
      upstream.on('error', end);
      socket.on('close', end);
      upstream.on('close', end);
    });
    front.on('tlsClientError', () => undefined);
    address = `127.0.0.1:${await listening(front)}`;
    closers.push(() => new Promise<void>((r) => front.close(() => r())));
  });

  const temporal = (env: Record<string, string>) => loadConfig({ TEMPORAL_ADDRESS: address, ...env }).temporal;

  it('reaches the server with the CA and a client certificate (client connection and NativeConnection)', async () => {
    const t = temporal({ TEMPORAL_TLS_CA: files.ca, TEMPORAL_TLS_CERT: files.clientCert, TEMPORAL_TLS_KEY: files.clientKey });
    const connection = await Connection.connect({ ...temporalConnectionOptions(t), connectTimeout: 10_000 });
    try {
      expect((await connection.workflowService.getSystemInfo({})).serverVersion).toBeTruthy();
    } finally {
      await connection.close();
    }
    const native = await NativeConnection.connect(temporalConnectionOptions(t));
    try {
      expect((await native.workflowService.getSystemInfo({})).serverVersion).toBeTruthy();
    } finally {
      await native.close();
    }
  });

  it('checks the server certificate against TEMPORAL_TLS_SERVER_NAME when given', async () => {
    // The certificate names 127.0.0.1 and localhost, not this name: refused.
    const t = temporal({ TEMPORAL_TLS_CA: files.ca, TEMPORAL_TLS_CERT: files.clientCert, TEMPORAL_TLS_KEY: files.clientKey, TEMPORAL_TLS_SERVER_NAME: 'temporal.example.test' });
    await expect(Connection.connect({ ...temporalConnectionOptions(t), connectTimeout: 5000 }).then((c) => c.workflowService.getSystemInfo({}))).rejects.toThrow();
    const ok = temporal({ TEMPORAL_TLS_CA: files.ca, TEMPORAL_TLS_CERT: files.clientCert, TEMPORAL_TLS_KEY: files.clientKey, TEMPORAL_TLS_SERVER_NAME: 'localhost' });
    const connection = await Connection.connect({ ...temporalConnectionOptions(ok), connectTimeout: 10_000 });
    await connection.workflowService.getSystemInfo({});
    await connection.close();
  });

  it('is refused without a client certificate, and in plain text', async () => {
    await expect(Connection.connect({ ...temporalConnectionOptions(temporal({ TEMPORAL_TLS_CA: files.ca })), connectTimeout: 5000 }).then((c) => c.workflowService.getSystemInfo({}))).rejects.toThrow();
    await expect(Connection.connect({ ...temporalConnectionOptions(temporal({})), connectTimeout: 5000 }).then((c) => c.workflowService.getSystemInfo({}))).rejects.toThrow();
  });

  it('refuses a certificate without its key, and files it cannot read, naming the variable', () => {
    expect(() => temporal({ TEMPORAL_TLS_CERT: files.clientCert })).toThrow(expect.objectContaining({ variable: 'TEMPORAL_TLS_KEY' }));
    expect(() => temporal({ TEMPORAL_TLS_CA: path.join(dir, 'missing.crt') })).toThrow(expect.objectContaining({ variable: 'TEMPORAL_TLS_CA' }));
    expect(temporal({}).tls).toBeNull();
    expect(temporal({ TEMPORAL_TLS: 'true' }).tls).toEqual({ ca: undefined, cert: undefined, key: undefined, serverName: undefined });
  });
});

describe('SMTP with STARTTLS required', () => {
  async function relay(startTls: boolean): Promise<{ url: string; secure: boolean[] }> {
    const secure: boolean[] = [];
    const server = new SMTPServer({
      ...(startTls ? { key: fs.readFileSync(files.serverKey), cert: fs.readFileSync(files.serverCert) } : { disabledCommands: ['STARTTLS'] }),
      authOptional: true,
      logger: false,
      onData(stream, session, cb) {
        stream.resume();
        stream.on('end', () => {
          secure.push(session.secure);
          cb();
        });
      },
    });
    const port = await new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.server.address() as net.AddressInfo).port)));
    closers.push(() => new Promise<void>((r) => server.close(() => r())));
    return { url: `smtp://127.0.0.1:${port}`, secure };
  }
  const send = (env: Record<string, string>) => {
    const transport = createMailTransport(loadConfig(env).email);
    return transport.sendMail({ from: 'welcome@demo-energy.example', to: 'aoife@example.org', subject: 'hello', text: 'hello' }).finally(() => transport.close());
  };

  it('refuses a relay that offers no STARTTLS by default, sends in plain text only with SMTP_REQUIRE_TLS=false', async () => {
    const r = await relay(false);
    await expect(send({ SMTP_URL: r.url })).rejects.toThrow();
    expect(r.secure).toEqual([]);
    await send({ SMTP_URL: r.url, SMTP_REQUIRE_TLS: 'false' });
    expect(r.secure).toEqual([false]);
  });

  it("upgrades with STARTTLS and checks the relay's certificate against SMTP_TLS_CA", async () => {
    const r = await relay(true);
    await expect(send({ SMTP_URL: r.url })).rejects.toThrow(/certificate/i);
    await send({ SMTP_URL: r.url, SMTP_TLS_CA: files.ca });
    expect(r.secure).toEqual([true]);
  });

  it('allows plain SMTP to loopback only', () => {
    expect(configErrorVariable({ SMTP_URL: 'smtp://10.0.0.5:25', SMTP_REQUIRE_TLS: 'false' })).toBe('SMTP_REQUIRE_TLS');
    expect(configErrorVariable({ SMTP_URL: 'smtp://mail.example.test:587', SMTP_REQUIRE_TLS: 'false' })).toBe('SMTP_REQUIRE_TLS');
    expect(configErrorVariable({ SMTP_URL: 'smtp://127.0.0.1:1025', SMTP_REQUIRE_TLS: 'false' })).toBeNull();
    expect(configErrorVariable({ SMTP_URL: 'smtp://[::1]:1025', SMTP_REQUIRE_TLS: 'false' })).toBeNull();
    expect(configErrorVariable({ SMTP_URL: 'smtps://mail.example.test', SMTP_REQUIRE_TLS: 'false' })).toBeNull();
    expect(configErrorVariable({ SMTP_TLS_CA: path.join(dir, 'missing.crt') })).toBe('SMTP_TLS_CA');
    expect(loadConfig({}).email.smtpRequireTls).toBe(true);
  });
});

describe('the API over HTTPS', () => {
  it('serves HTTPS with API_TLS_CERT/API_TLS_KEY and nothing in plain text', async () => {
    const c = loadConfig({ API_TLS_CERT: files.serverCert, API_TLS_KEY: files.serverKey }).http;
    const server = createApiServer(c, (_req, res) => res.end('ok'));
    const port = await listening(server);
    closers.push(() => new Promise<void>((r) => server.close(() => r())));
    const body = await new Promise<string>((resolve, reject) => {
      https.get({ host: '127.0.0.1', port, path: '/', ca: fs.readFileSync(files.ca) }, (res) => {
        let b = '';
        res.on('data', (d) => (b += String(d)));
        res.on('end', () => resolve(b));
      }).on('error', reject);
    });
    expect(body).toBe('ok');
    // Plain HTTP to the TLS listener gets no HTTP answer.
    const plain = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(5000) }).then((r) => `HTTP ${r.status}`, (err: Error) => `refused: ${String((err as { cause?: unknown }).cause ?? err)}`);
    expect(plain).toMatch(/^refused/);
    expect(() => loadConfig({ API_TLS_CERT: files.serverCert })).toThrow(expect.objectContaining({ variable: 'API_TLS_KEY' }));
    expect(loadConfig({}).http.tls).toBeNull();
  });
});
