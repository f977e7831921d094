/**
 * The intruder of the hosts harness (issue 39, "a host on the subnet without credentials cannot
 * enter"): run inside a host of the subnet that holds no credential of the deployment
 * (`ip netns exec dih-intruder node --import tsx test/hosts/intruder.ts '<targets as JSON>'`), it
 * tries every link as an attacker on the network would — the service's own client libraries, no
 * password, no token, no client certificate, every server certificate trusted blindly — and prints
 * one line per attempt (what it sent, what it got) and, last, a JSON line:
 * `{"attempts":[{link, request, answer, entered}]}`. The harness fails the run if any entered.
 *
 *   PostgreSQL  as the superuser `postgres` and as the service's role with a guessed password, over
 *               plain TCP and over TLS: entered when a query on the service's database answers;
 *               etcd (its leader key chooses the primary) without a client certificate, and
 *               Patroni's REST API (a switchover) without credentials
 *   NATS        every node's client port, plain and TLS, no credentials: entered when the server
 *               lets it subscribe to every event (`<prefix>.>`) and flush; the route port without a
 *               client certificate; the monitoring port (/connz lists every client)
 *   Temporal    the frontend, plain and TLS without a client certificate: entered when listing the
 *               namespace's workflows answers (whoever can list can also terminate them)
 *   SMTP        a message from outside, plain and with STARTTLS, no AUTH: entered when the relay
 *               accepts it (250 after DATA)
 *   API         the load balancer and each API host, plain HTTP and TLS without a client
 *               certificate, no token: entered when a data operation answers 2xx or the link
 *               answers in plain text (every token and account crossing it readable)
 */
import net from 'node:net';
import tls from 'node:tls';
import pg from 'pg';
import nodemailer from 'nodemailer';
import { connect } from '@nats-io/transport-node';
import { Connection } from '@temporalio/client';

export interface IntruderTargets {
  pg: { host: string; port: number; database: string; serviceUser: string; patroniPort: number; etcdPort: number };
  nats: { hosts: string[]; port: number; routePort: number; monitorPort: number; subjectPrefix: string };
  /** The CA's certificate (public: every client of the deployment has it), so TLS attempts fail on what they lack, not on trust. */
  temporal: { host: string; port: number; namespace: string; caPem: string };
  smtp: { host: string; port: number };
  api: { lb: { host: string; port: number }; hosts: string[]; port: number; supplier: string };
}

export interface Attempt {
  link: 'PostgreSQL' | 'NATS' | 'Temporal' | 'SMTP' | 'API';
  request: string;
  answer: string;
  entered: boolean;
}

const TIMEOUT_MS = 8000;

function withTimeout<T>(p: Promise<T>, what: string, ms = TIMEOUT_MS): Promise<T> {
  let t: NodeJS.Timeout;
  return Promise.race([p, new Promise<never>((_, reject) => (t = setTimeout(() => reject(new Error(`${what}: no answer in ${ms / 1000} s`)), ms)))]).finally(() => clearTimeout(t));
}

const short = (err: unknown) => (err instanceof Error ? `${err.constructor.name}: ${err.message}` : String(err)).replace(/\s+/g, ' ').slice(0, 200);

async function postgres(t: IntruderTargets['pg']): Promise<Attempt[]> {
  const tries: { user: string; password?: string; ssl: false | { rejectUnauthorized: false } }[] = [
    { user: 'postgres', ssl: false },
    { user: 'postgres', ssl: { rejectUnauthorized: false } },
    { user: t.serviceUser, password: 'data_import', ssl: false },
    { user: t.serviceUser, password: 'data_import', ssl: { rejectUnauthorized: false } },
  ];
  const out: Attempt[] = [];
  for (const x of tries) {
    const request = `psql host=${t.host} port=${t.port} user=${x.user}${x.password ? ` password=<guessed>` : ' (no password)'} dbname=${t.database} sslmode=${x.ssl ? 'require' : 'disable'} -c 'SELECT count(*) FROM import_processes'`;
    const c = new pg.Client({ host: t.host, port: t.port, user: x.user, password: x.password ?? '', database: t.database, ssl: x.ssl, connectionTimeoutMillis: TIMEOUT_MS, query_timeout: TIMEOUT_MS });
    c.on('error', () => undefined);
    try {
      await c.connect();
      const r = await c.query('SELECT count(*)::int AS n FROM import_processes');
      out.push({ link: 'PostgreSQL', request, answer: `count = ${r.rows[0].n}`, entered: true });
    } catch (err) {
      out.push({ link: 'PostgreSQL', request, answer: short(err), entered: false });
    } finally {
      await c.end().catch(() => undefined);
    }
  }
  // The failover's own links: etcd (whoever writes the leader key chooses the primary) and
  // Patroni's REST API (a switchover or restart on request).
  const etcd = `GET https://${t.host}:${t.etcdPort}/version (etcd, no client certificate)`;
  const e = await httpRequest(t.host, t.etcdPort, '/version', true);
  out.push({ link: 'PostgreSQL', request: etcd, answer: e.answer, entered: e.status !== null && e.status < 400 });
  const patroni = `POST https://${t.host}:${t.patroniPort}/switchover (Patroni's REST API, no credentials)`;
  const pr = await httpRequest(t.host, t.patroniPort, '/switchover', true, 'POST', '{"leader":"pg1"}');
  out.push({ link: 'PostgreSQL', request: patroni, answer: pr.answer, entered: pr.status !== null && pr.status < 400 });
  return out;
}

async function nats(t: IntruderTargets['nats']): Promise<Attempt[]> {
  const out: Attempt[] = [];
  for (const h of t.hosts) {
    for (const useTls of [false, true]) {
      const request = `NATS ${h}:${t.port}${useTls ? ' (TLS, server not verified)' : ''}, no credentials: SUB ${t.subjectPrefix}.> and flush`;
      try {
        const nc = await withTimeout(
          connect({ servers: `${h}:${t.port}`, reconnect: false, timeout: TIMEOUT_MS, tls: useTls ? { rejectUnauthorized: false } as never : undefined }),
          'connect',
        );
        try {
          const sub = nc.subscribe(`${t.subjectPrefix}.>`);
          await withTimeout(nc.flush(), 'flush');
          // A permission violation arrives asynchronously after the flush: give it a moment.
          await new Promise((r) => setTimeout(r, 300));
          const closed = sub.isClosed();
          out.push({ link: 'NATS', request, answer: closed ? 'subscription refused' : `connected to ${nc.getServer()}, subscribed to every event`, entered: !closed });
        } finally {
          await nc.close().catch(() => undefined);
        }
      } catch (err) {
        out.push({ link: 'NATS', request, answer: short(err), entered: false });
      }
    }
    // The cluster route port: a route from an unknown host (TLS without a client certificate).
    out.push(await routeAttempt(h, t.routePort));
    // Monitoring: /connz names every client and its address.
    const request = `GET http://${h}:${t.monitorPort}/connz`;
    try {
      const r = await fetch(`http://${h}:${t.monitorPort}/connz`, { signal: AbortSignal.timeout(TIMEOUT_MS) });
      out.push({ link: 'NATS', request, answer: `HTTP ${r.status}`, entered: r.ok });
    } catch (err) {
      out.push({ link: 'NATS', request, answer: short((err as { cause?: unknown }).cause ?? err), entered: false });
    }
  }
  return out;
}

/** Dials a NATS route port: answered without TLS (an INFO in plain text) or TLS without a client certificate accepted = entered. */
function routeAttempt(host: string, port: number): Promise<Attempt> {
  const request = `CONNECT to the route port ${host}:${port} as a route (no client certificate, no route credentials)`;
  return new Promise((resolve) => {
    const s = net.connect({ host, port });
    const done = (answer: string, entered: boolean) => {
      clearTimeout(timer);
      s.destroy();
      resolve({ link: 'NATS', request, answer, entered });
    };
    const timer = setTimeout(() => done('no answer', false), TIMEOUT_MS);
    s.once('error', (err) => done(short(err), false));
    s.once('data', (buf) => {
      const line = buf.toString('utf8').split('\r\n')[0] ?? '';
      const info = /^INFO (\{.*\})/.exec(line);
      const parsed = info ? (JSON.parse(info[1]!) as { tls_required?: boolean; auth_required?: boolean }) : {};
      if (!parsed.tls_required) {
        done(`route INFO in plain text${parsed.auth_required ? ', authentication required' : ', no authentication'}`, !parsed.auth_required);
        return;
      }
      const secure = tls.connect({ socket: s, rejectUnauthorized: false, servername: host });
      secure.once('secureConnect', () => {
        // A server that verifies routes ends the handshake after it (TLS 1.3 sends its alert late).
        secure.write('CONNECT {"verbose":false,"pedantic":false,"name":"intruder"}\r\nPING\r\n');
        secure.once('data', (d) => done(`TLS accepted without a client certificate: ${d.toString('utf8').split('\r\n')[0]}`, !/^-ERR/.test(d.toString('utf8'))));
      });
      secure.once('error', (err) => done(`TLS: ${short(err)}`, false));
      secure.once('close', () => done('TLS: closed by the server', false));
    });
  });
}

async function temporal(t: IntruderTargets['temporal']): Promise<Attempt[]> {
  const out: Attempt[] = [];
  for (const useTls of [false, true]) {
    const request = `temporal workflow list --address ${t.host}:${t.port} --namespace ${t.namespace}${useTls ? ' --tls --tls-ca-path ca.crt (no client certificate)' : ''}`;
    let connection: Connection | undefined;
    try {
      connection = await withTimeout(Connection.connect({ address: `${t.host}:${t.port}`, tls: useTls ? { serverRootCACertificate: Buffer.from(t.caPem) } : undefined, connectTimeout: TIMEOUT_MS }), 'connect');
      const r = await withTimeout(connection.workflowService.listWorkflowExecutions({ namespace: t.namespace, pageSize: 5 }), 'list');
      out.push({ link: 'Temporal', request, answer: `answered: ${r.executions.length} workflow(s) on the first page (${r.executions.map((e) => e.execution?.workflowId).slice(0, 2).join(', ')})`, entered: true });
    } catch (err) {
      out.push({ link: 'Temporal', request, answer: short(err), entered: false });
    } finally {
      await connection?.close().catch(() => undefined);
    }
  }
  return out;
}

async function smtp(t: IntruderTargets['smtp']): Promise<Attempt[]> {
  const out: Attempt[] = [];
  for (const startTls of [false, true]) {
    const request = `SMTP ${t.host}:${t.port}${startTls ? ' with STARTTLS' : ' plain'}, no AUTH: MAIL FROM:<intruder@example.test> RCPT TO:<customer@example.test> DATA`;
    const transport = nodemailer.createTransport({
      host: t.host,
      port: t.port,
      secure: false,
      ignoreTLS: !startTls,
      requireTLS: startTls,
      tls: { rejectUnauthorized: false },
      connectionTimeout: TIMEOUT_MS,
      greetingTimeout: TIMEOUT_MS,
      socketTimeout: TIMEOUT_MS,
    });
    try {
      const info = await transport.sendMail({ from: 'intruder@example.test', to: 'customer@example.test', subject: 'intruder', text: 'sent by the harness intruder', messageId: `<intruder-${Date.now()}@example.test>` });
      out.push({ link: 'SMTP', request, answer: `accepted: ${info.response}`, entered: true });
    } catch (err) {
      const e = err as { response?: string };
      out.push({ link: 'SMTP', request, answer: e.response ?? short(err), entered: false });
    } finally {
      transport.close();
    }
  }
  return out;
}

/** One HTTP request over a raw socket (plain or TLS, no client certificate): the status line, or why none came. */
function httpRequest(host: string, port: number, path: string, useTls: boolean, method = 'GET', body = ''): Promise<{ status: number | null; answer: string }> {
  return new Promise((resolve) => {
    const s: net.Socket = useTls ? tls.connect({ host, port, rejectUnauthorized: false, servername: host }) : net.connect({ host, port });
    let buf = '';
    const done = (r: { status: number | null; answer: string }) => {
      clearTimeout(timer);
      s.destroy();
      resolve(r);
    };
    const timer = setTimeout(() => done({ status: null, answer: buf ? `incomplete answer: ${buf.slice(0, 80)}` : 'no answer' }), TIMEOUT_MS);
    s.once(useTls ? 'secureConnect' : 'connect', () =>
      s.write(`${method} ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n${body ? `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` : ''}\r\n${body}`),
    );
    s.on('data', (d) => {
      buf += d.toString('latin1');
      const m = /^HTTP\/1\.[01] (\d{3})[^\r\n]*/.exec(buf);
      if (m) done({ status: Number(m[1]), answer: m[0] });
    });
    s.once('error', (err) => done({ status: null, answer: short(err) }));
    s.once('close', () => done({ status: null, answer: buf ? `closed: ${buf.slice(0, 80).replace(/\s+/g, ' ')}` : 'closed by the server' }));
  });
}

async function api(t: IntruderTargets['api']): Promise<Attempt[]> {
  const out: Attempt[] = [];
  const listing = `/v1/data-import/all-account-import-processes/${t.supplier}/`;
  const targets = [t.lb, ...t.hosts.map((h) => ({ host: h, port: t.port }))];
  for (const { host, port } of targets) {
    for (const useTls of [false, true]) {
      const request = `GET ${useTls ? 'https' : 'http'}://${host}:${port}${listing} (no token${useTls ? ', no client certificate' : ''})`;
      const r = await httpRequest(host, port, listing, useTls);
      // Plain HTTP answered at all: the link carries tokens and accounts in clear text.
      const entered = r.status !== null && (!useTls || (r.status >= 200 && r.status < 300));
      out.push({ link: 'API', request, answer: r.answer + (entered && !useTls ? ' (in plain text)' : ''), entered });
    }
  }
  return out;
}

export async function intrude(t: IntruderTargets): Promise<Attempt[]> {
  const parts = await Promise.all([postgres(t.pg), nats(t.nats), temporal(t.temporal), smtp(t.smtp), api(t.api)]);
  return parts.flat();
}

if (require.main === module) {
  const targets = JSON.parse(process.argv[2] ?? '{}') as IntruderTargets;
  intrude(targets).then(
    (attempts) => {
      for (const a of attempts) process.stderr.write(`[intruder] ${a.entered ? 'ENTERED' : 'refused'}  ${a.link}: ${a.request} -> ${a.answer}\n`);
      process.stdout.write(`${JSON.stringify({ attempts })}\n`);
      process.exit(0);
    },
    (err) => {
      process.stderr.write(`[intruder] failed: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(2);
    },
  );
}
