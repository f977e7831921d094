/**
 * The services of the harness's hosts (docs/scaling.md, "The reference deployment"), each started
 * inside its host's namespace with `ip netns exec`, listening on the host's own address, every link
 * authenticated and encrypted ("Credentials of each link"; a CA of the run's own, pki.ts):
 *   pg        a PostgreSQL cluster of the run's own: the role data_import (no superuser), scram-sha-256,
 *             hostssl from the subnet to its database only
 *   temporal  the Temporal dev server on the host's loopback (in memory, npm run up's search
 *             attributes and dynamic config), HAProxy terminating mutual TLS on the host's address
 *   nats1…3   a NATS cluster with JetStream (the stream at 3 replicas): client TLS, users with
 *             permissions (natsAuth.ts), routes over mutual TLS with a route user, monitoring on loopback
 *   worker1…2 a worker each (node dist/worker/main.js: imports, e-mails, the outbox relay), supervised
 *   api1…2    an API each (node dist/api/main.js, HTTPS), supervised
 *   lb        HAProxy in front of the two APIs: TLS to the clients and to the APIs, health-checking /readyz
 *   smtp      the SMTP relay (test/hosts/smtpSink.ts): STARTTLS, AUTH required
 * scripts/hosts.sh finds the binaries and passes them in HOSTS_* variables.
 */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { apiNodeOptions, serviceProcessEnv, workerNodeOptions } from '../../lib/nodeOptions';
import crypto from 'node:crypto';
import https from 'node:https';
import type { TLSConfig } from '@temporalio/client';
import { natsSettings } from '../../lib/config';
import type { NatsLink } from '../../events/nats';
import type { IntruderTargets } from './intruder';
import { makeNatsUsers, natsAuthorization, type NatsUsers } from './natsAuth';
import { createPki, type Pki } from './pki';
import { GATEWAY, host, Host, HostName, SUBNET_PREFIX } from './net';

export const ROOT = path.join(__dirname, '..', '..');
export const DIST = path.join(ROOT, 'dist');
export const PORTS = { pg: 5432, temporal: 7233, nats: 4222, natsCluster: 6222, natsMonitor: 8222, api: 8000, lb: 8000, smtp: 2525, smtpHttp: 8025 } as const;
export const NATS_NODES: HostName[] = ['nats1', 'nats2', 'nats3'];

export function need(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run the harness with scripts/hosts.sh (npm run test:hosts)`);
  return v;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function portAnswers(ip: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: ip, port });
    const t = setTimeout(() => {
      s.destroy();
      resolve(false);
    }, 1000);
    s.once('connect', () => {
      clearTimeout(t);
      s.destroy();
      resolve(true);
    });
    s.once('error', () => {
      clearTimeout(t);
      resolve(false);
    });
  });
}

export async function waitForPort(ip: string, port: number, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await portAnswers(ip, port))) {
    if (Date.now() > deadline) throw new Error(`${what} did not open ${ip}:${port} within ${timeoutMs / 1000} s`);
    await sleep(200);
  }
}

const secret = () => crypto.randomBytes(24).toString('base64url');

/** The status of a GET over HTTPS with the harness's CA (null: no answer). */
export function httpsStatus(url: string, ca: string, timeoutMs = 2000): Promise<number | null> {
  return new Promise((resolve) => {
    const req = https.get(url, { ca: fs.readFileSync(ca), timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode ?? null);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(null));
  });
}

/** Set once the harness tears the hosts down: no supervised service is started again after that. */
let tearingDown = false;
export function stopSupervising(): void {
  tearingDown = true;
}

/**
 * One service on one host: started (and started again after a kill) with the same command. A
 * supervised one (the workers and APIs) is started again a second after it exits, whatever the
 * reason, as systemd's `Restart=always` or a container orchestrator would: a worker that leaves
 * because it cannot reach PostgreSQL (WORKER_DB_UNREACHABLE_EXIT_MS) comes back this way.
 */
export class Service {
  child: ChildProcess | null = null;
  /** How many times the supervisor started it again after an exit. */
  restarts = 0;
  private restartTimer: NodeJS.Timeout | null = null;
  constructor(
    readonly name: string,
    readonly host: Host,
    private readonly argv: string[],
    private readonly env: NodeJS.ProcessEnv,
    readonly logFile: string,
    private readonly supervised = false,
  ) {}

  start(): void {
    if (this.running || this.restartTimer) return;
    const out = fs.openSync(this.logFile, 'a');
    fs.appendFileSync(this.logFile, `\n--- [hosts] ${new Date().toISOString()} starting ${this.name} on ${this.host.ns} (${this.host.ip}) ---\n`);
    // `ip netns exec` enters the namespace and execs the command: the child's pid is the service's.
    const child = spawn('ip', ['netns', 'exec', this.host.ns, ...this.argv], { env: this.env, stdio: ['ignore', out, out] });
    this.child = child;
    fs.closeSync(out);
    child.on('error', () => undefined);
    child.on('exit', (code, signal) => {
      if (!this.supervised || tearingDown || this.child !== child) return;
      fs.appendFileSync(this.logFile, `\n--- [hosts] ${new Date().toISOString()} ${this.name} exited (${signal ?? code}); the supervisor starts it again in 1 s ---\n`);
      this.restartTimer = setTimeout(() => {
        this.restartTimer = null;
        if (tearingDown) return;
        this.restarts++;
        this.start();
      }, 1000);
    });
  }

  get running(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Waits (bounded) until the process has exited, after a kill of its host. */
  async exited(timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.running && Date.now() < deadline) await sleep(50);
  }
}

export interface Stack {
  work: string;
  env: NodeJS.ProcessEnv;
  services: Map<string, Service>;
  apiUrl: string;
  natsUrl: string;
  databaseUrl: string;
  temporalAddress: string;
  smtpMessagesUrl: string;
  /** The bearer token of the relay's message list (the harness's own view). */
  smtpMessagesToken: string;
  apiKey: string;
  pki: Pki;
  natsUsers: NatsUsers;
  /** How the harness's checks reach NATS (the checker user) and Temporal (its client certificate). */
  checker: { nats: NatsLink; temporal: { address: string; tls: TLSConfig } };
  /** What the intruder host tries (test/hosts/intruder.ts). */
  intruderTargets: IntruderTargets;
  /** Starts a stopped or killed service again (same command, same data). */
  restart(name: string): void;
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv, logFile: string): string {
  const out = fs.openSync(logFile, 'a');
  try {
    return execFileSync(cmd, args, { env, encoding: 'utf8', stdio: ['ignore', 'pipe', out], timeout: 180_000 });
  } finally {
    fs.closeSync(out);
  }
}

/** Starts every service on its host, in dependency order, each waited for (bounded). */
export async function startStack(work: string, say: (line: string) => void): Promise<Stack> {
  const logs = path.join(work, 'logs');
  fs.mkdirSync(logs, { recursive: true });
  const services = new Map<string, Service>();
  const add = (name: string, h: Host, argv: string[], env: NodeJS.ProcessEnv = process.env, supervised = false) => {
    const s = new Service(name, h, argv, env, path.join(logs, `${name}.log`), supervised);
    services.set(name, s);
    s.start();
    return s;
  };

  // Every link authenticated and encrypted (issue 39; docs/scaling.md, "Credentials of each link"):
  // a CA of the run's own, a certificate per server, a password or certificate per client.
  const pki = createPki(path.join(work, 'pki'));
  const pg = host('pg');
  const temporal = host('temporal');
  const smtp = host('smtp');
  const lb = host('lb');
  pki.issue('pg', { ip: [pg.ip] });
  pki.issue('temporal', { ip: [temporal.ip] });
  for (const name of NATS_NODES) pki.issue(name, { ip: [host(name).ip] });
  pki.issue('smtp', { ip: [smtp.ip] });
  pki.issue('lb', { ip: [lb.ip] });
  for (const name of ['api1', 'api2'] as const) pki.issue(name, { ip: [host(name).ip], dns: [name] });
  // Temporal's clients: the service's hosts and the harness's checker.
  const temporalClient = pki.issue('data-import-service', { dns: ['data-import-service'] });
  const checkerClient = pki.issue('checker', { dns: ['checker'] });
  const secrets = {
    pg: secret(),
    smtp: secret(),
    sinkToken: secret(),
    signingKey: crypto.randomBytes(32).toString('base64url'),
  };
  const natsUsers = makeNatsUsers();

  // PostgreSQL: a cluster of the run's own, as an unprivileged user, on the pg host's address.
  // The service's own role (not a superuser), scram-sha-256 over TLS only (hostssl), from the
  // subnet only, to its database only; the superuser only over the host's own socket (peer).
  const pgBin = need('HOSTS_PG_BIN');
  const pgUser = need('HOSTS_PG_USER');
  const pgData = path.join(work, 'pg');
  fs.mkdirSync(pgData, { recursive: true });
  execFileSync('chown', ['-R', pgUser, pgData]);
  const asPg = ['setpriv', `--reuid=${pgUser}`, `--regid=${pgUser}`, '--init-groups'];
  run(asPg[0]!, [...asPg.slice(1), path.join(pgBin, 'initdb'), '-D', pgData, '-U', 'postgres', '--auth-local=peer', '--auth-host=scram-sha-256', '--encoding=UTF8', '--no-locale'], process.env, path.join(logs, 'pg.log'));
  fs.writeFileSync(path.join(pgData, 'pg_hba.conf'), [
    '# the superuser: on the host itself only, as its OS user',
    'local all postgres peer map=admin',
    `# the service: its role, its database, TLS and scram-sha-256, from the hosts' subnet`,
    `hostssl data_import_hosts data_import ${SUBNET_PREFIX}.0/24 scram-sha-256`,
    '',
  ].join('\n'));
  fs.writeFileSync(path.join(pgData, 'pg_ident.conf'), `admin ${pgUser} postgres\n`);
  for (const [from, to] of [[pki.cert('pg').cert, 'server.crt'], [pki.cert('pg').key, 'server.key']] as const) {
    fs.copyFileSync(from, path.join(pgData, to));
    fs.chmodSync(path.join(pgData, to), 0o600);
  }
  execFileSync('chown', ['-R', pgUser, pgData]);
  // The server's own keepalive settings stay PostgreSQL's defaults (tcp_keepalives_idle: the
  // kernel's, two hours): a managed server is not ours to tune, so what bounds a silent peer must
  // be the service's own doing.
  add('pg', pg, [...asPg, path.join(pgBin, 'postgres'), '-D', pgData, '-c', `listen_addresses=${pg.ip}`, '-p', String(PORTS.pg), '-c', `unix_socket_directories=${pgData}`, '-c', 'max_connections=200', '-c', 'ssl=on', '-c', 'ssl_min_protocol_version=TLSv1.2', '-c', 'password_encryption=scram-sha-256']);
  await waitForPort(pg.ip, PORTS.pg, 60_000, 'PostgreSQL');
  // The SQL on psql's standard input: the role's password never on a command line.
  const psqlBin = fs.existsSync(path.join(pgBin, 'psql')) ? path.join(pgBin, 'psql') : 'psql';
  const psql = (sql: string) =>
    execFileSync(asPg[0]!, [...asPg.slice(1), psqlBin, '-h', pgData, '-p', String(PORTS.pg), '-U', 'postgres', '-d', 'postgres', '-v', 'ON_ERROR_STOP=1', '-q'], { input: sql, stdio: ['pipe', 'ignore', 'pipe'], timeout: 60_000 });
  psql(`CREATE ROLE data_import LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD '${secrets.pg}'`);
  psql('CREATE DATABASE data_import_hosts OWNER data_import');

  // Temporal: the dev server on its host's loopback, and mutual TLS in front of it on the host's
  // address. `temporal server start-dev` has no TLS settings of its own (its flags and config are
  // fixed: tried), so HAProxy terminates mutual TLS there (ALPN h2: gRPC) and passes the stream to
  // the dev server: a client without a certificate of the CA gets no TLS session, so no gRPC.
  const targv = need('HOSTS_TEMPORAL_ARGV').split('\n').filter(Boolean).map((a) => (a === '@IP@' ? '127.0.0.1' : a));
  add('temporal', temporal, targv);
  const temporalTlsCfg = path.join(work, 'temporal-tls.cfg');
  fs.writeFileSync(temporalTlsCfg, [
    'global',
    '  maxconn 2000',
    'defaults',
    '  mode tcp',
    '  timeout connect 2s',
    // gRPC long polls (up to ~70 s) and keepalive pings cross it: idle longer than any of them.
    '  timeout client 10m',
    '  timeout server 10m',
    'frontend temporal',
    `  bind ${temporal.ip}:${PORTS.temporal} ssl crt ${pki.cert('temporal').pem} ca-file ${pki.ca} verify required alpn h2 ssl-min-ver TLSv1.2`,
    '  default_backend dev',
    'backend dev',
    `  server dev 127.0.0.1:${PORTS.temporal}`,
    '',
  ].join('\n'));
  add('temporal-tls', temporal, [need('HOSTS_HAPROXY'), '-f', temporalTlsCfg, '-db']);

  // NATS: three nodes, JetStream, routes between them; clients over TLS as users with permissions
  // (test/hosts/natsAuth.ts), routes over mutual TLS with a route user, monitoring on loopback only.
  for (const name of NATS_NODES) {
    const h = host(name);
    const dir = path.join(work, name);
    fs.mkdirSync(path.join(dir, 'store'), { recursive: true });
    const routes = NATS_NODES.filter((n) => n !== name).map((n) => `nats-route://${natsUsers.route.user}:${natsUsers.route.password}@${host(n).ip}:${PORTS.natsCluster}`);
    const cert = pki.cert(name);
    const tlsBlock = (verify: boolean) => [`  tls {`, `    cert_file: ${JSON.stringify(cert.cert)}`, `    key_file: ${JSON.stringify(cert.key)}`, `    ca_file: ${JSON.stringify(pki.ca)}`, `    verify: ${verify}`, '    timeout: 2', '  }'];
    const conf = path.join(dir, 'nats.conf');
    fs.writeFileSync(
      conf,
      [
        `server_name: ${name}`,
        `listen: ${h.ip}:${PORTS.nats}`,
        // The monitoring endpoint on the host's loopback only: the harness reads /connz through
        // the host's namespace (which node a worker's connection is on).
        `http: 127.0.0.1:${PORTS.natsMonitor}`,
        ...tlsBlock(false).map((l) => l.slice(2)),
        natsAuthorization(natsUsers, { stream: 'EVENTS', prefix: 'events' }),
        'jetstream {',
        `  store_dir: ${JSON.stringify(path.join(dir, 'store'))}`,
        '  sync_interval: always',
        '}',
        'cluster {',
        '  name: dih',
        `  listen: ${h.ip}:${PORTS.natsCluster}`,
        `  authorization { user: ${JSON.stringify(natsUsers.route.user)}, password: ${JSON.stringify(natsUsers.route.password)}, timeout: 2 }`,
        ...tlsBlock(true),
        `  routes: [${routes.map((r) => JSON.stringify(r)).join(', ')}]`,
        '}',
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
    add(name, h, [need('HOSTS_NATS_SERVER'), '-c', conf]);
  }

  // The SMTP relay: STARTTLS, AUTH required over TLS.
  add('smtp', smtp, [process.execPath, '--import', 'tsx', path.join(__dirname, 'smtpSink.ts'), smtp.ip, String(PORTS.smtp), String(PORTS.smtpHttp)], {
    ...process.env,
    SINK_SMTP_USER: 'data-import',
    SINK_SMTP_PASSWORD: secrets.smtp,
    SINK_HTTP_TOKEN: secrets.sinkToken,
    SINK_TLS_CERT: pki.cert('smtp').cert,
    SINK_TLS_KEY: pki.cert('smtp').key,
  });

  await waitForPort(temporal.ip, PORTS.temporal, 90_000, 'the Temporal dev server (through its TLS front)');
  for (const name of NATS_NODES) await waitForPort(host(name).ip, PORTS.nats, 30_000, `NATS ${name}`);
  await waitForPort(smtp.ip, PORTS.smtp, 30_000, 'the SMTP relay');

  const natsUrl = NATS_NODES.map((n) => `tls://${host(n).ip}:${PORTS.nats}`).join(',');
  const databaseUrl = `postgres://data_import:${encodeURIComponent(secrets.pg)}@${pg.ip}:${PORTS.pg}/data_import_hosts?sslmode=verify-full&sslrootcert=${encodeURIComponent(pki.ca)}`;
  const temporalAddress = `${temporal.ip}:${PORTS.temporal}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    APP_ENV: 'production',
    AUTH_SIGNING_KEY: secrets.signingKey,
    LOG_LEVEL: 'info',
    DATABASE_URL: databaseUrl,
    NATS_URL: natsUrl,
    NATS_USER: natsUsers.service.user,
    NATS_PASSWORD: natsUsers.service.password,
    NATS_INBOX_PREFIX: natsUsers.service.inboxPrefix,
    NATS_TLS_CA: pki.ca,
    EVENTS_REPLICAS: '3',
    EVENTS_STREAM: 'EVENTS',
    EVENTS_SUBJECT_PREFIX: 'events',
    TEMPORAL_ADDRESS: temporalAddress,
    TEMPORAL_TLS_CA: pki.ca,
    TEMPORAL_TLS_CERT: temporalClient.cert,
    TEMPORAL_TLS_KEY: temporalClient.key,
    TEMPORAL_TASK_QUEUE: 'data-import',
    WORKER_DEPLOYMENT_NAME: 'data-import-hosts',
    WORKER_BECOME_CURRENT: 'if-none',
    WORKER_BUILD_ID: undefined,
    WORKER_METRICS_PORT: '0',
    SMTP_URL: `smtp://data-import:${encodeURIComponent(secrets.smtp)}@${smtp.ip}:${PORTS.smtp}`,
    SMTP_TLS_CA: pki.ca,
    OPS_BIND: 'off',
    DEMO_API_KEY_FILE: path.join(work, 'demo-api-key'),
    // The migrate client trusts the harness's CA for the load balancer's certificate.
    NODE_EXTRA_CA_CERTS: pki.ca,
  };

  // Migrations and the demo organisation, from the runner's host (the gateway), as the service's role.
  const setup = run(process.execPath, [path.join(DIST, 'scripts', 'setup.js'), '--demo'], env, path.join(logs, 'setup.log'));
  const apiKey = /^API_KEY=(.*)$/m.exec(setup)?.[1];
  if (!apiKey) throw new Error(`setup printed no API key (see ${path.join(logs, 'setup.log')})`);
  // Customer e-mails on, through the relay, at a pace that keeps up with the book.
  run(process.execPath, [path.join(DIST, 'cli', 'main.js'), 'import-suppliers', 'configure', 'DEMO_ENERGY', '--send-customer-emails', '--email-from-address', 'welcome@demo-energy.example', '--email-rate', '50'], env, path.join(logs, 'setup.log'));
  say(`PostgreSQL ${pg.ip} (role data_import, scram-sha-256, hostssl), Temporal ${temporalAddress} (mutual TLS), NATS ${natsUrl} (users, TLS; routes mutual TLS), SMTP relay ${smtp.ip} (STARTTLS, AUTH): up; database migrated, e-mails on`);

  const svcEnv = serviceProcessEnv(env);
  for (const name of ['worker1', 'worker2'] as const) {
    add(name, host(name), [process.execPath, ...workerNodeOptions(env), path.join(DIST, 'worker', 'main.js')], svcEnv, true);
  }
  for (const name of ['api1', 'api2'] as const) {
    const h = host(name);
    const c = pki.cert(name);
    add(name, h, [process.execPath, ...apiNodeOptions(env), path.join(DIST, 'api', 'main.js')], { ...svcEnv, HOST: h.ip, PORT: String(PORTS.api), API_TLS_CERT: c.cert, API_TLS_KEY: c.key }, true);
  }
  for (const name of ['api1', 'api2'] as const) await waitForPort(host(name).ip, PORTS.api, 60_000, name);

  // HAProxy: TLS for the clients; round robin over the two APIs over TLS (each API's certificate
  // checked against the CA and its name), each health-checked on /readyz every second.
  const cfg = path.join(work, 'haproxy.cfg');
  fs.writeFileSync(
    cfg,
    [
      'global',
      '  maxconn 2000',
      'defaults',
      '  mode http',
      '  timeout connect 2s',
      '  timeout client 60s',
      '  timeout server 35s',
      '  retries 2',
      '  option redispatch',
      'frontend api',
      `  bind ${lb.ip}:${PORTS.lb} ssl crt ${pki.cert('lb').pem} ssl-min-ver TLSv1.2`,
      '  default_backend apis',
      'backend apis',
      '  balance roundrobin',
      '  option httpchk GET /readyz',
      '  http-check expect status 200',
      `  default-server inter 1s fall 2 rise 2 ssl verify required ca-file ${pki.ca}`,
      ...(['api1', 'api2'] as const).map((n) => `  server ${n} ${host(n).ip}:${PORTS.api} check verifyhost ${n} sni str(${n})`),
      '',
    ].join('\n'),
  );
  add('lb', lb, [need('HOSTS_HAPROXY'), '-f', cfg, '-db']);
  const apiUrl = `https://${lb.ip}:${PORTS.lb}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if ((await httpsStatus(`${apiUrl}/readyz`, pki.ca)) === 200) break;
    if (Date.now() > deadline) throw new Error(`the API did not answer ready through HAProxy (${apiUrl}) within 120 s`);
    await sleep(500);
  }
  say(`2 workers, 2 APIs behind HAProxy ${apiUrl}; the runner reaches the hosts from ${GATEWAY}`);

  return {
    work,
    env,
    services,
    apiUrl,
    natsUrl,
    databaseUrl,
    temporalAddress,
    smtpMessagesUrl: `http://${smtp.ip}:${PORTS.smtpHttp}/messages`,
    smtpMessagesToken: secrets.sinkToken,
    apiKey,
    pki,
    natsUsers,
    checker: {
      nats: natsSettings({ NATS_URL: natsUrl, NATS_USER: natsUsers.checker.user, NATS_PASSWORD: natsUsers.checker.password, NATS_INBOX_PREFIX: natsUsers.checker.inboxPrefix, NATS_TLS_CA: pki.ca }),
      temporal: { address: temporalAddress, tls: { serverRootCACertificate: fs.readFileSync(pki.ca), clientCertPair: { crt: fs.readFileSync(checkerClient.cert), key: fs.readFileSync(checkerClient.key) } } },
    },
    intruderTargets: {
      pg: { host: pg.ip, port: PORTS.pg, database: 'data_import_hosts', serviceUser: 'data_import' },
      nats: { hosts: NATS_NODES.map((n) => host(n).ip), port: PORTS.nats, routePort: PORTS.natsCluster, monitorPort: PORTS.natsMonitor, subjectPrefix: 'events' },
      temporal: { host: temporal.ip, port: PORTS.temporal, namespace: 'default', caPem: fs.readFileSync(pki.ca, 'utf8') },
      smtp: { host: smtp.ip, port: PORTS.smtp },
      api: { lb: { host: lb.ip, port: PORTS.lb }, hosts: (['api1', 'api2'] as const).map((n) => host(n).ip), port: PORTS.api, supplier: 'DEMO_ENERGY' },
    },
    restart(name: string) {
      const s = services.get(name);
      if (!s) throw new Error(`no service ${name}`);
      s.start();
    },
  };
}
