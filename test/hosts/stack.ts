/**
 * The services of the harness's hosts (docs/scaling.md, "The reference deployment"), each started
 * inside its host's namespace with `ip netns exec`, listening on the host's own address:
 *   pg        a PostgreSQL cluster of the run's own (server defaults but for listen address and max_connections)
 *   temporal  the Temporal dev server (in memory, npm run up's search attributes and dynamic config)
 *   nats1…3   a NATS cluster with JetStream (routes between the three; the stream at 3 replicas)
 *   worker1…2 a worker each (node dist/worker/main.js: imports, e-mails, the outbox relay), supervised
 *   api1…2    an API each (node dist/api/main.js), supervised
 *   lb        HAProxy in front of the two APIs, health-checking /readyz
 *   smtp      the SMTP sink (test/hosts/smtpSink.ts)
 * scripts/hosts.sh finds the binaries and passes them in HOSTS_* variables.
 */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { apiNodeOptions, serviceProcessEnv, workerNodeOptions } from '../../lib/nodeOptions';
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
  apiKey: string;
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

  // PostgreSQL: a cluster of the run's own, as an unprivileged user, on the pg host's address.
  const pg = host('pg');
  const pgBin = need('HOSTS_PG_BIN');
  const pgUser = need('HOSTS_PG_USER');
  const pgData = path.join(work, 'pg');
  fs.mkdirSync(pgData, { recursive: true });
  execFileSync('chown', ['-R', pgUser, pgData]);
  const asPg = ['setpriv', `--reuid=${pgUser}`, `--regid=${pgUser}`, '--init-groups'];
  run(asPg[0]!, [...asPg.slice(1), path.join(pgBin, 'initdb'), '-D', pgData, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--no-locale'], process.env, path.join(logs, 'pg.log'));
  fs.appendFileSync(path.join(pgData, 'pg_hba.conf'), `host all all ${SUBNET_PREFIX}.0/24 trust\n`);
  // The server's own keepalive settings stay PostgreSQL's defaults (tcp_keepalives_idle: the
  // kernel's, two hours): a managed server is not ours to tune, so what bounds a silent peer must
  // be the service's own doing.
  add('pg', pg, [...asPg, path.join(pgBin, 'postgres'), '-D', pgData, '-c', `listen_addresses=${pg.ip}`, '-p', String(PORTS.pg), '-c', `unix_socket_directories=${pgData}`, '-c', 'max_connections=200']);
  await waitForPort(pg.ip, PORTS.pg, 60_000, 'PostgreSQL');

  // Temporal: the dev server on every address of its host. Not `--ip <its address>`: the dev
  // server then binds its internal services (history, matching) to that address but dials them on
  // 127.0.0.1, and never comes up. The host has no other address than its own and loopback.
  const temporal = host('temporal');
  const targv = need('HOSTS_TEMPORAL_ARGV').split('\n').filter(Boolean).map((a) => (a === '@IP@' ? '0.0.0.0' : a));
  add('temporal', temporal, targv);

  // NATS: three nodes, JetStream, routes between them.
  for (const name of NATS_NODES) {
    const h = host(name);
    const dir = path.join(work, name);
    fs.mkdirSync(path.join(dir, 'store'), { recursive: true });
    const routes = NATS_NODES.filter((n) => n !== name).map((n) => `nats://${host(n).ip}:${PORTS.natsCluster}`);
    fs.writeFileSync(
      path.join(dir, 'nats.conf'),
      [
        `server_name: ${name}`,
        `listen: ${h.ip}:${PORTS.nats}`,
        // The monitoring endpoint: the harness finds which node a worker's connection is on (/connz).
        `http: ${h.ip}:${PORTS.natsMonitor}`,
        'jetstream {',
        `  store_dir: ${JSON.stringify(path.join(dir, 'store'))}`,
        '  sync_interval: always',
        '}',
        'cluster {',
        '  name: dih',
        `  listen: ${h.ip}:${PORTS.natsCluster}`,
        `  routes: [${routes.join(', ')}]`,
        '}',
        '',
      ].join('\n'),
    );
    add(name, h, [need('HOSTS_NATS_SERVER'), '-c', path.join(dir, 'nats.conf')]);
  }

  // The SMTP sink.
  const smtp = host('smtp');
  add('smtp', smtp, [process.execPath, '--import', 'tsx', path.join(__dirname, 'smtpSink.ts'), smtp.ip, String(PORTS.smtp), String(PORTS.smtpHttp)]);

  await waitForPort(temporal.ip, PORTS.temporal, 90_000, 'the Temporal dev server');
  for (const name of NATS_NODES) await waitForPort(host(name).ip, PORTS.nats, 30_000, `NATS ${name}`);
  await waitForPort(smtp.ip, PORTS.smtp, 30_000, 'the SMTP sink');

  const natsUrl = NATS_NODES.map((n) => `nats://${host(n).ip}:${PORTS.nats}`).join(',');
  const databaseUrl = `postgres://postgres@${pg.ip}:${PORTS.pg}/data_import_hosts`;
  const temporalAddress = `${temporal.ip}:${PORTS.temporal}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    APP_ENV: 'development',
    LOG_LEVEL: 'info',
    DATABASE_URL: databaseUrl,
    NATS_URL: natsUrl,
    EVENTS_REPLICAS: '3',
    EVENTS_STREAM: 'EVENTS',
    EVENTS_SUBJECT_PREFIX: 'events',
    TEMPORAL_ADDRESS: temporalAddress,
    TEMPORAL_TASK_QUEUE: 'data-import',
    WORKER_DEPLOYMENT_NAME: 'data-import-hosts',
    WORKER_BECOME_CURRENT: 'if-none',
    WORKER_BUILD_ID: undefined,
    WORKER_METRICS_PORT: '0',
    SMTP_URL: `smtp://${smtp.ip}:${PORTS.smtp}`,
    OPS_BIND: 'off',
    DEMO_API_KEY_FILE: path.join(work, 'demo-api-key'),
  };

  // Migrations and the demo organisation, from the runner's host (the gateway).
  const setup = run(process.execPath, [path.join(DIST, 'scripts', 'setup.js'), '--demo'], env, path.join(logs, 'setup.log'));
  const apiKey = /^API_KEY=(.*)$/m.exec(setup)?.[1];
  if (!apiKey) throw new Error(`setup printed no API key (see ${path.join(logs, 'setup.log')})`);
  // Customer e-mails on, through the sink, at a pace that keeps up with the book.
  run(process.execPath, [path.join(DIST, 'cli', 'main.js'), 'import-suppliers', 'configure', 'DEMO_ENERGY', '--send-customer-emails', '--email-from-address', 'welcome@demo-energy.example', '--email-rate', '50'], env, path.join(logs, 'setup.log'));
  say(`PostgreSQL ${pg.ip}, Temporal ${temporalAddress}, NATS ${natsUrl}, SMTP sink ${smtp.ip}: up; database migrated, e-mails on`);

  const svcEnv = serviceProcessEnv(env);
  for (const name of ['worker1', 'worker2'] as const) {
    add(name, host(name), [process.execPath, ...workerNodeOptions(env), path.join(DIST, 'worker', 'main.js')], svcEnv, true);
  }
  for (const name of ['api1', 'api2'] as const) {
    const h = host(name);
    add(name, h, [process.execPath, ...apiNodeOptions(env), path.join(DIST, 'api', 'main.js')], { ...svcEnv, HOST: h.ip, PORT: String(PORTS.api) }, true);
  }
  for (const name of ['api1', 'api2'] as const) await waitForPort(host(name).ip, PORTS.api, 60_000, name);

  // HAProxy: round robin over the two APIs, each health-checked on /readyz every second.
  const lb = host('lb');
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
      `  bind ${lb.ip}:${PORTS.lb}`,
      '  default_backend apis',
      'backend apis',
      '  balance roundrobin',
      '  option httpchk GET /readyz',
      '  http-check expect status 200',
      '  default-server inter 1s fall 2 rise 2',
      ...(['api1', 'api2'] as const).map((n) => `  server ${n} ${host(n).ip}:${PORTS.api} check`),
      '',
    ].join('\n'),
  );
  add('lb', lb, [need('HOSTS_HAPROXY'), '-f', cfg, '-db']);
  const apiUrl = `http://${lb.ip}:${PORTS.lb}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    const ok = await fetch(`${apiUrl}/readyz`, { signal: AbortSignal.timeout(2000) }).then((r) => r.ok, () => false);
    if (ok) break;
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
    apiKey,
    restart(name: string) {
      const s = services.get(name);
      if (!s) throw new Error(`no service ${name}`);
      s.start();
    },
  };
}
