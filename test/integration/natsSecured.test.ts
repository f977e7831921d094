/**
 * NATS secured by configuration (issue 39, finding 5), against real nats-servers of the test's own:
 * a password-protected one (NATS_USER/NATS_PASSWORD, and the same credentials in NATS_URL, which
 * the client used to drop: "Authorization Violation"), a token one (NATS_TOKEN, nats://token@…),
 * one in operator mode (NATS_CREDS_FILE: a user JWT and its nkey seed), one that requires TLS
 * (NATS_TLS_CA, a tls:// URL) and client certificates (NATS_TLS_CERT/KEY), and the per-user
 * permissions of the reference deployment (test/hosts/natsAuth.ts): the migration's monitor reads
 * the data-import process events and nothing with personal data, on core subjects and through the
 * stream alike.
 */
import { ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { nkeys } from '@nats-io/nats-core';
import { AckPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { loadConfig } from '../../lib/config';
import { connectNats, ensureStream, type NatsConnection } from '../../events/nats';
import { freePort, natsServerBinary } from '../support/natsServer';
import { makeTlsFiles } from '../support/tlsFiles';
import { configErrorVariable } from '../support/configError';
import { makeNatsUsers, natsAuthorization } from '../hosts/natsAuth';
import { eventually } from '../support/eventually';

jest.setTimeout(60_000);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'di-nats-secured-'));
const children: ChildProcess[] = [];

async function server(name: string, conf: (port: number) => string[]): Promise<{ port: number; log: string }> {
  const port = await freePort();
  const file = path.join(dir, `${name}.conf`);
  fs.writeFileSync(file, [`listen: 127.0.0.1:${port}`, ...conf(port), ''].join('\n'));
  const log = path.join(dir, `${name}.log`);
  const out = fs.openSync(log, 'a');
  const c = spawn(natsServerBinary(), ['-c', file], { stdio: ['ignore', out, out] });
  fs.closeSync(out);
  children.push(c);
  const deadline = Date.now() + 15_000;
  while (!fs.readFileSync(log, 'utf8').includes('Server is ready')) {
    if (c.exitCode !== null) throw new Error(`nats-server ${name} exited: ${fs.readFileSync(log, 'utf8').slice(-1500)}`);
    if (Date.now() > deadline) throw new Error(`nats-server ${name} not ready in 15 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { port, log };
}

const nats = (env: Record<string, string>) => loadConfig({ APP_ENV: 'test', ...env }).nats;

/** Connects with the link, proves the session with a flush, closes; the error when refused. */
async function tryConnect(env: Record<string, string>): Promise<string> {
  let nc: NatsConnection | undefined;
  try {
    nc = await connectNats(nats(env), 'nats-secured-test');
    await nc.flush();
    return 'connected';
  } catch (err) {
    return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  } finally {
    await nc?.close().catch(() => undefined);
  }
}

/** A NATS JWT (ed25519-nkey) of these claims, signed by `signer`. */
function jwt(signer: ReturnType<typeof nkeys.createOperator>, claims: Record<string, unknown>): string {
  const b64 = (x: unknown) => Buffer.from(JSON.stringify(x)).toString('base64url');
  const body = `${b64({ typ: 'JWT', alg: 'ed25519-nkey' })}.${b64({ jti: `T${Date.now()}${Math.random()}`.replace('.', ''), iat: Math.floor(Date.now() / 1000), iss: signer.getPublicKey(), ...claims })}`;
  return `${body}.${Buffer.from(signer.sign(Buffer.from(body))).toString('base64url')}`;
}

afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('NATS credentials and TLS by configuration', () => {
  it('reaches a password-protected server with NATS_USER/NATS_PASSWORD and with the credentials in NATS_URL; refuses without or with a wrong one', async () => {
    const { port } = await server('password', () => ['authorization { user: "svc", password: "s3cret pw/@" }']);
    expect(await tryConnect({ NATS_URL: `nats://127.0.0.1:${port}` })).toMatch(/Authorization Violation/);
    expect(await tryConnect({ NATS_URL: `nats://127.0.0.1:${port}`, NATS_USER: 'svc', NATS_PASSWORD: 'wrong' })).toMatch(/Authorization Violation/);
    expect(await tryConnect({ NATS_URL: `nats://127.0.0.1:${port}`, NATS_USER: 'svc', NATS_PASSWORD: 's3cret pw/@' })).toBe('connected');
    // Before: the client dropped the URL's credentials and the server answered "Authorization Violation".
    expect(await tryConnect({ NATS_URL: `nats://svc:${encodeURIComponent('s3cret pw/@')}@127.0.0.1:${port}` })).toBe('connected');
  });

  it('reaches a token server with NATS_TOKEN and with nats://<token>@host', async () => {
    const { port } = await server('token', () => ['authorization { token: "t0ken-abc" }']);
    expect(await tryConnect({ NATS_URL: `nats://127.0.0.1:${port}` })).toMatch(/Authorization Violation/);
    expect(await tryConnect({ NATS_URL: `nats://127.0.0.1:${port}`, NATS_TOKEN: 't0ken-abc' })).toBe('connected');
    expect(await tryConnect({ NATS_URL: `nats://t0ken-abc@127.0.0.1:${port}` })).toBe('connected');
  });

  it('reaches an operator-mode server with NATS_CREDS_FILE (user JWT and nkey seed)', async () => {
    const operator = nkeys.createOperator();
    const account = nkeys.createAccount();
    const user = nkeys.createUser();
    const opJwt = jwt(operator, { sub: operator.getPublicKey(), name: 'op', nats: { type: 'operator', version: 2 } });
    const accJwt = jwt(operator, {
      sub: account.getPublicKey(),
      name: 'A',
      nats: { limits: { subs: -1, data: -1, payload: -1, imports: -1, exports: -1, wildcards: true, conn: -1, leaf: -1 }, default_permissions: { pub: {}, sub: {} }, type: 'account', version: 2 },
    });
    const userJwt = jwt(account, { sub: user.getPublicKey(), name: 'u', nats: { pub: {}, sub: {}, subs: -1, data: -1, payload: -1, type: 'user', version: 2 } });
    const { port } = await server('operator', () => [`operator: ${opJwt}`, 'resolver: MEMORY', `resolver_preload: { ${account.getPublicKey()}: ${JSON.stringify(accJwt)} }`]);
    const creds = path.join(dir, 'user.creds');
    fs.writeFileSync(creds, `-----BEGIN NATS USER JWT-----\n${userJwt}\n------END NATS USER JWT------\n\n-----BEGIN USER NKEY SEED-----\n${new TextDecoder().decode(user.getSeed())}\n------END USER NKEY SEED------\n`);
    expect(await tryConnect({ NATS_URL: `nats://127.0.0.1:${port}` })).toMatch(/Authorization Violation/);
    expect(await tryConnect({ NATS_URL: `nats://127.0.0.1:${port}`, NATS_CREDS_FILE: creds })).toBe('connected');
  });

  it('requires TLS with NATS_TLS_CA or tls://, presents NATS_TLS_CERT/KEY to a server that verifies clients', async () => {
    const c = makeTlsFiles(dir);
    const tlsServer = await server('tls', () => ['tls {', `  cert_file: ${JSON.stringify(c.serverCert)}`, `  key_file: ${JSON.stringify(c.serverKey)}`, `  ca_file: ${JSON.stringify(c.ca)}`, '  verify: true', '}']);
    const url = `tls://127.0.0.1:${tlsServer.port}`;
    // No client certificate: the server ends the handshake.
    expect(await tryConnect({ NATS_URL: url, NATS_TLS_CA: c.ca })).not.toBe('connected');
    // The server's certificate not trusted (no CA given: the system's): refused.
    expect(await tryConnect({ NATS_URL: url, NATS_TLS_CERT: c.clientCert, NATS_TLS_KEY: c.clientKey })).toMatch(/certificate/i);
    expect(await tryConnect({ NATS_URL: url, NATS_TLS_CA: c.ca, NATS_TLS_CERT: c.clientCert, NATS_TLS_KEY: c.clientKey })).toBe('connected');
    // A server without TLS is refused when TLS is required (NATS_TLS, a tls:// URL): no fallback to plain text.
    const plain = await server('plain', () => []);
    expect(await tryConnect({ NATS_URL: `nats://127.0.0.1:${plain.port}`, NATS_TLS: 'true' })).toMatch(/tls/i);
    expect(await tryConnect({ NATS_URL: `tls://127.0.0.1:${plain.port}` })).toMatch(/tls/i);
    expect(await tryConnect({ NATS_URL: `nats://127.0.0.1:${plain.port}` })).toBe('connected');
  });

  it('refuses settings that contradict each other, naming the variable', () => {
    expect(configErrorVariable({ NATS_USER: 'a' })).toBe('NATS_PASSWORD');
    expect(configErrorVariable({ NATS_USER: 'a', NATS_PASSWORD: 'b', NATS_TOKEN: 'c' })).toBe('NATS_TOKEN');
    expect(configErrorVariable({ NATS_URL: 'nats://a:b@h:4222', NATS_USER: 'a', NATS_PASSWORD: 'b' })).toBe('NATS_URL');
    expect(configErrorVariable({ NATS_URL: 'nats://a:b@h:4222,nats://c:d@i:4222' })).toBe('NATS_URL');
    expect(configErrorVariable({ NATS_URL: 'http://h:4222' })).toBe('NATS_URL');
    expect(configErrorVariable({ NATS_TLS_CA: '/nonexistent/ca.crt' })).toBe('NATS_TLS_CA');
    expect(configErrorVariable({ NATS_CREDS_FILE: '/nonexistent/u.creds' })).toBe('NATS_CREDS_FILE');
    expect(configErrorVariable({ NATS_INBOX_PREFIX: '_INBOX.*' })).toBe('NATS_INBOX_PREFIX');
    // The servers as the client dials them carry no credentials (they reach error messages and logs).
    expect(loadConfig({ NATS_URL: 'nats://u:p@10.0.0.1:4222, tls://u:p@10.0.0.2' }).nats.servers).toEqual(['10.0.0.1:4222', '10.0.0.2:4222']);
  });
});

describe("the reference deployment's NATS users (test/hosts/natsAuth.ts)", () => {
  it('lets the monitor read the data-import events only, and the CRM the personal data too; nobody reads another user\'s inbox', async () => {
    const users = makeNatsUsers();
    const store = path.join(dir, 'js');
    const { port } = await server('accounts', () => ['jetstream {', `  store_dir: ${JSON.stringify(store)}`, '}', natsAuthorization(users, { stream: 'EVENTS', prefix: 'events' })]);
    const as = (user: string, password: string, inboxPrefix: string) => connectNats(nats({ NATS_URL: `nats://127.0.0.1:${port}`, NATS_USER: user, NATS_PASSWORD: password, NATS_INBOX_PREFIX: inboxPrefix }), `test-${user}`);
    const service = await as(users.service.user, users.service.password, users.service.inboxPrefix);
    const monitorUser = users.consumers.find((c) => c.name === 'migration-monitor')!;
    const crmUser = users.consumers.find((c) => c.name === 'crm')!;
    const monitor = await as(monitorUser.name, monitorUser.password, monitorUser.inboxPrefix);
    const crm = await as(crmUser.name, crmUser.password, crmUser.inboxPrefix);
    try {
      // The service creates its stream and publishes through JetStream (its inbox takes the acks).
      await ensureStream(service, { stream: 'EVENTS', subjectPrefix: 'events', duplicateWindowMs: 60_000, maxAgeMs: 3_600_000, maxBytes: -1, replicas: 1 });
      const js = jetstream(service);
      await js.publish('events.data_import.import_process.complete.v1', '{"n":1}');
      await js.publish('events.account_user.psr_records_updated.v1', '{"psr":"oxygen use"}');

      // Core subjects: the monitor's subscription to account_user events is refused by the server.
      const refused = monitor.subscribe('events.account_user.>');
      const allowed = monitor.subscribe('events.data_import.>');
      await monitor.flush();
      await eventually(async () => refused.isClosed(), 10_000, 20);
      expect(refused.isClosed()).toBe(true);
      expect(allowed.isClosed()).toBe(false);
      // Another user's inbox: refused.
      const snoop = monitor.subscribe(`${crmUser.inboxPrefix}.>`);
      await monitor.flush();
      await eventually(async () => snoop.isClosed(), 10_000, 20);
      expect(snoop.isClosed()).toBe(true);

      // The stream: the monitor's own consumer with its own filter is created and reads; one with a
      // wider filter, or under another name, is refused; so is a direct read of a stored message.
      const jsm = await jetstreamManager(monitor, { checkAPI: false });
      await jsm.consumers.add('EVENTS', { durable_name: 'migration-monitor', filter_subject: 'events.data_import.>', ack_policy: AckPolicy.Explicit });
      const m = await (await jetstream(monitor).consumers.get('EVENTS', 'migration-monitor')).next({ expires: 5000 });
      expect(m?.subject).toBe('events.data_import.import_process.complete.v1');
      m?.ack();
      await expect(jsm.consumers.add('EVENTS', { durable_name: 'migration-monitor', filter_subject: 'events.>', ack_policy: AckPolicy.Explicit })).rejects.toThrow(/permission|timeout/i);
      await expect(jsm.consumers.add('EVENTS', { durable_name: 'crm', filter_subject: 'events.account_user.>', ack_policy: AckPolicy.Explicit })).rejects.toThrow(/permission|timeout/i);
      await expect(jsm.streams.getMessage('EVENTS', { seq: 2 })).rejects.toThrow(/permission|timeout/i);

      // The CRM reads the PSR event through its own consumer.
      const crmJsm = await jetstreamManager(crm, { checkAPI: false });
      await crmJsm.consumers.add('EVENTS', { durable_name: 'crm', filter_subject: 'events.account_user.>', ack_policy: AckPolicy.Explicit });
      const p = await (await jetstream(crm).consumers.get('EVENTS', 'crm')).next({ expires: 5000 });
      expect(p?.subject).toBe('events.account_user.psr_records_updated.v1');
    } finally {
      await Promise.all([service, monitor, crm].map((c) => c.close().catch(() => undefined)));
    }
  });
});
