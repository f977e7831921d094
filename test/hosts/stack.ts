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
import { ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
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
import { freePort } from '../support/natsServer';
import { GATEWAY, host, Host, HostName, SUBNET_PREFIX } from './net';

export const ROOT = path.join(__dirname, '..', '..');
export const DIST = path.join(ROOT, 'dist');
export const PORTS = { pg: 5432, patroni: 8008, etcd: 2379, etcdPeer: 2380, temporal: 7233, nats: 4222, natsCluster: 6222, natsMonitor: 8222, api: 8000, lb: 8000, smtp: 2525, smtpHttp: 8025 } as const;
export const NATS_NODES: HostName[] = ['nats1', 'nats2', 'nats3'];
export const PG_NODES: HostName[] = ['pg1', 'pg2'];

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

/** The services the harness runs in the root namespace (teardown() kills only the hosts' own). */
const rootChildren = new Set<ChildProcess>();
export function killRootServices(): void {
  for (const c of rootChildren) c.kill('SIGKILL');
  rootChildren.clear();
}

/** Waits (bounded) until a port answers on a host's own loopback, from inside its namespace. */
export async function waitForPortIn(h: Host, port: number, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = spawnSync('ip', ['netns', 'exec', h.ns, 'bash', '-c', `exec 3<>/dev/tcp/127.0.0.1/${port}`], { stdio: 'ignore', timeout: 5000 });
    if (r.status === 0) return;
    if (Date.now() > deadline) throw new Error(`${what} did not open 127.0.0.1:${port} on ${h.name} within ${timeoutMs / 1000} s`);
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
    // A service of the runner's own host (the root namespace: its PostgreSQL proxy) runs as it is.
    const [cmd, ...args] = this.host.ns ? ['ip', 'netns', 'exec', this.host.ns, ...this.argv] : this.argv;
    const child = spawn(cmd!, args, { env: this.env, stdio: ['ignore', out, out] });
    if (!this.host.ns) rootChildren.add(child);
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
  /** The OS user PostgreSQL and Patroni run as (a node's socket answers it as the superuser). */
  pgUser: string;
  natsUsers: NatsUsers;
  /** How the harness's checks reach NATS (the checker user) and Temporal (its client certificate). */
  checker: { nats: NatsLink; temporal: { address: string; tls: TLSConfig } };
  /** What the intruder host tries (test/hosts/intruder.ts). */
  intruderTargets: IntruderTargets;
  /** Starts a stopped or killed service again (same command, same data). */
  restart(name: string): void;
}

/** pgBackRest's stanza: one for the cluster (both nodes archive into it, whichever is the primary). */
export const BACKUP_STANZA = 'dih';

/** A node's pgBackRest configuration: the run's repository, its own data directory and socket. */
function pgBackRestConf(work: string, name: string): string {
  const dir = path.join(work, name);
  return [
    '[global]',
    `repo1-path=${path.join(work, 'backup')}`,
    'repo1-retention-full=2',
    // Every WAL segment checked on its way into the repository; backups compressed.
    'compress-type=lz4',
    `log-path=${path.join(dir, 'pgbackrest-log')}`,
    `lock-path=${path.join(dir, 'pgbackrest-lock')}`,
    'log-level-console=info',
    'log-level-file=detail',
    'start-fast=y',
    '',
    `[${BACKUP_STANZA}]`,
    `pg1-path=${path.join(dir, 'data')}`,
    `pg1-socket-path=${dir}`,
    `pg1-port=${PORTS.pg}`,
    'pg1-user=postgres',
    '',
  ].join('\n');
}

/** Runs pgBackRest on a PostgreSQL host as the PostgreSQL user, with the node's configuration; returns its output. */
export function pgBackRest(pgUser: string, work: string, h: Host, args: string[], logFile: string): string {
  const out = fs.openSync(logFile, 'a');
  try {
    fs.appendFileSync(logFile, `\n--- [hosts] ${new Date().toISOString()} pgbackrest ${args.join(' ')} on ${h.name} ---\n`);
    const text = execFileSync(
      'ip',
      ['netns', 'exec', h.ns, 'setpriv', `--reuid=${pgUser}`, `--regid=${pgUser}`, '--init-groups', need('HOSTS_PGBACKREST'), `--config=${path.join(work, h.name, 'pgbackrest.conf')}`, `--stanza=${BACKUP_STANZA}`, ...args],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', out], timeout: 300_000 },
    );
    fs.appendFileSync(logFile, text);
    return text;
  } finally {
    fs.closeSync(out);
  }
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
  const addRoot = (name: string, argv: string[]) => add(name, { name: 'runner', ns: '', ip: GATEWAY }, argv);
  const add = (name: string, h: Host, argv: string[], env: NodeJS.ProcessEnv = process.env, supervised = false) => {
    const s = new Service(name, h, argv, env, path.join(logs, `${name}.log`), supervised);
    services.set(name, s);
    s.start();
    return s;
  };

  // Every link authenticated and encrypted (issue 39; docs/scaling.md, "Credentials of each link"):
  // a CA of the run's own, a certificate per server, a password or certificate per client.
  const pki = createPki(path.join(work, 'pki'));
  const temporal = host('temporal');
  const smtp = host('smtp');
  const lb = host('lb');
  // PostgreSQL's certificates name 127.0.0.1 too: each service host reaches the primary through the
  // HAProxy on its own loopback (below), and checks the server's certificate for that address.
  for (const name of PG_NODES) pki.issue(name, { ip: [host(name).ip, '127.0.0.1'] });
  pki.issue('dcs', { ip: [host('dcs').ip] });
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
    pgSuperuser: secret(),
    pgReplication: secret(),
    pgRewind: secret(),
    patroniApi: secret(),
    smtp: secret(),
    sinkToken: secret(),
    signingKey: crypto.randomBytes(32).toString('base64url'),
  };
  const natsUsers = makeNatsUsers();

  // PostgreSQL on two hosts (issue 38; docs/scaling.md, "PostgreSQL on two hosts"): Patroni on pg1
  // and pg2 runs a primary and a synchronous standby, its leader lock in etcd (three members: pg1,
  // pg2 and dcs, so one host lost keeps the quorum). A primary that cannot renew its lock demotes
  // itself (fencing); the standby is promoted only once the lock has expired; a returning old
  // primary rejoins as a standby (pg_rewind). Every link with TLS: etcd's clients and peers with
  // certificates of the CA, Patroni's REST API over TLS, replication over hostssl with scram.
  // The service's own role (not a superuser), scram-sha-256 over TLS only (hostssl), from the
  // subnet only, to its database only; the superuser only over the host's own socket (peer).
  const pgUser = need('HOSTS_PG_USER');
  const pgBin = path.dirname(fs.realpathSync(path.join(need('HOSTS_PG_BIN'), 'pg_ctl')));
  const asPg = ['setpriv', `--reuid=${pgUser}`, `--regid=${pgUser}`, '--init-groups'];
  const dcsHosts: HostName[] = [...PG_NODES, 'dcs'];
  // HOSTS_PATRONI_DCS=etcd3 puts back the configuration before issue 48's fix (Patroni's etcd3
  // client, etcd without the v2 API and pre-vote): only to show the cause with the commit checker
  // (test/hosts/commits.ts), never a deployment's setting.
  const etcd3 = process.env.HOSTS_PATRONI_DCS === 'etcd3';
  if (etcd3) say('HOSTS_PATRONI_DCS=etcd3: Patroni on etcd3, etcd without v2 and pre-vote (the configuration before issue 48\'s fix)');
  const etcdCluster = dcsHosts.map((n) => `${n}=https://${host(n).ip}:${PORTS.etcdPeer}`).join(',');
  for (const name of dcsHosts) {
    const h = host(name);
    const dir = path.join(work, `etcd-${name}`);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const c = pki.cert(name);
    const etcdArgs = [
      need('HOSTS_ETCD'), '--name', name, '--data-dir', dir,
      '--listen-client-urls', `https://${h.ip}:${PORTS.etcd}`, '--advertise-client-urls', `https://${h.ip}:${PORTS.etcd}`,
      '--listen-peer-urls', `https://${h.ip}:${PORTS.etcdPeer}`, '--initial-advertise-peer-urls', `https://${h.ip}:${PORTS.etcdPeer}`,
      '--initial-cluster', etcdCluster, '--initial-cluster-state', 'new', '--initial-cluster-token', 'dih',
      '--cert-file', c.cert, '--key-file', c.key, '--trusted-ca-file', pki.ca, '--client-cert-auth',
      '--peer-cert-file', c.cert, '--peer-key-file', c.key, '--peer-trusted-ca-file', pki.ca, '--peer-client-cert-auth',
      ...(etcd3
        ? []
        : [
            // Patroni talks to etcd's v2 API (see the Patroni config below, issue 48); etcd 3.4 serves it only when asked.
            '--enable-v2=true',
            // A member cut off campaigns alone (its term climbs to 20 and more in 30 s); without pre-vote its
            // return deposes the leader and the cluster stands still for an election (etcd 3.4's default: off).
            '--pre-vote=true',
          ]),
    ];
    add(`etcd-${name}`, h, etcdArgs);
  }
  for (const name of PG_NODES) {
    const h = host(name);
    const dir = path.join(work, name);
    fs.mkdirSync(dir, { recursive: true });
    const c = pki.cert(name);
    // Patroni reads the key as the PostgreSQL user: copies it owns.
    for (const f of ['crt', 'key'] as const) fs.copyFileSync(f === 'crt' ? c.cert : c.key, path.join(dir, `server.${f}`));
    fs.copyFileSync(pki.ca, path.join(dir, 'ca.crt'));
    const peers = PG_NODES.map(host);
    // Continuous WAL archiving and base backups with pgBackRest (docs/operations.md, "Backups and
    // restore"): one repository for the cluster (a volume both nodes mount, standing for a backup
    // host or an object store), one stanza; whichever node is the primary archives every WAL segment
    // (archive_mode=on: a standby archives nothing), so a failover keeps the archive continuous.
    fs.writeFileSync(path.join(dir, 'pgbackrest.conf'), pgBackRestConf(work, name), { mode: 0o600 });
    for (const d of ['pgbackrest-log', 'pgbackrest-lock']) fs.mkdirSync(path.join(dir, d), { recursive: true });
    const config = {
      scope: 'dih',
      name,
      log: { level: 'INFO' },
      restapi: {
        listen: `${h.ip}:${PORTS.patroni}`,
        connect_address: `${h.ip}:${PORTS.patroni}`,
        certfile: path.join(dir, 'server.crt'),
        keyfile: path.join(dir, 'server.key'),
        authentication: { username: 'patroni', password: secrets.patroniApi },
      },
      // etcd's v2 API, not etcd3 (issue 48): Patroni 3.0's etcd3 renews its leader key with an
      // unconditional put whenever its lease changed, trusting a cluster view it reads serializable
      // (from whichever member it is connected to, possibly one just back from a cut and still
      // stale). A primary cut off for longer than ttl saw itself as the leader in its own member's
      // stale data after the heal, put the leader key over the new primary's, and took the cluster
      // back ("promoted self to leader because I had the session lock"): the commits the new
      // primary acknowledged meanwhile were lost. The v2 client renews with a compare-and-swap on
      // its own name (prevValue), so a stale view can never overwrite another node's key.
      [etcd3 ? 'etcd3' : 'etcd']: { hosts: dcsHosts.map((n) => `${host(n).ip}:${PORTS.etcd}`), protocol: 'https', cacert: path.join(dir, 'ca.crt'), cert: path.join(dir, 'server.crt'), key: path.join(dir, 'server.key') },
      bootstrap: {
        dcs: {
          // The leader lock: renewed every loop_wait, lost after ttl without a renewal (then the
          // primary demotes itself and the standby may take the lock).
          ttl: 10,
          loop_wait: 2,
          retry_timeout: 4,
          maximum_lag_on_failover: 0,
          // Synchronous replication: a commit returns once the standby has it, and only the
          // synchronous standby may be promoted (no committed transaction lost). Not strict: a
          // primary whose standby is gone goes on alone after Patroni drops the standby from
          // synchronous_standby_names (documented: docs/scaling.md).
          synchronous_mode: true,
          synchronous_mode_strict: false,
          postgresql: {
            use_pg_rewind: true,
            // wal_sender_timeout / wal_receiver_timeout at 10 s (default 60 s): a standby that
            // falls silent (a partition between the two hosts, no reset) is seen gone by the
            // primary within 10 s, so Patroni drops it from synchronous_standby_names and the
            // primary's commits, which wait for it meanwhile, go on; at 60 s every write of the
            // service stood still for the whole partition (pg-partition, docs/scaling.md).
            parameters: { wal_level: 'replica', hot_standby: 'on', wal_log_hints: 'on', max_wal_senders: 10, max_replication_slots: 10, max_connections: 200, password_encryption: 'scram-sha-256', wal_sender_timeout: '10s', wal_receiver_timeout: '10s' },
          },
        },
        initdb: [{ encoding: 'UTF8' }, 'no-locale', { 'auth-local': 'peer' }, { 'auth-host': 'scram-sha-256' }],
      },
      postgresql: {
        listen: `${h.ip}:${PORTS.pg}`,
        connect_address: `${h.ip}:${PORTS.pg}`,
        data_dir: path.join(dir, 'data'),
        bin_dir: pgBin,
        pgpass: path.join(dir, 'pgpass'),
        use_unix_socket: true,
        use_unix_socket_repl: false,
        authentication: {
          superuser: { username: 'postgres', password: secrets.pgSuperuser },
          replication: { username: 'replicator', password: secrets.pgReplication, sslmode: 'verify-full', sslrootcert: path.join(dir, 'ca.crt') },
          rewind: { username: 'rewinder', password: secrets.pgRewind, sslmode: 'verify-full', sslrootcert: path.join(dir, 'ca.crt') },
        },
        parameters: {
          unix_socket_directories: dir,
          ssl: 'on',
          ssl_cert_file: path.join(dir, 'server.crt'),
          ssl_key_file: path.join(dir, 'server.key'),
          ssl_min_protocol_version: 'TLSv1.2',
          archive_mode: 'on',
          archive_command: `${need('HOSTS_PGBACKREST')} --config=${path.join(dir, 'pgbackrest.conf')} --stanza=${BACKUP_STANZA} archive-push %p`,
          // A quiet primary still closes a segment every minute: the archive is never more than a minute behind.
          archive_timeout: 60,
        },
        pg_ident: [`admin ${pgUser} postgres`],
        pg_hba: [
          'local all postgres peer map=admin',
          `hostssl data_import_hosts data_import ${SUBNET_PREFIX}.0/24 scram-sha-256`,
          ...peers.map((p) => `hostssl replication replicator ${p.ip}/32 scram-sha-256`),
          ...peers.map((p) => `hostssl postgres rewinder ${p.ip}/32 scram-sha-256`),
        ],
      },
    };
    // JSON is YAML: Patroni reads it as its configuration file.
    fs.writeFileSync(path.join(dir, 'patroni.yml'), JSON.stringify(config, null, 2), { mode: 0o600 });
    execFileSync('chown', ['-R', pgUser, dir]);
    for (const f of ['server.key', 'server.crt', 'ca.crt']) fs.chmodSync(path.join(dir, f), 0o600);
    fs.chmodSync(dir, 0o700);
  }
  for (const name of dcsHosts) await waitForPort(host(name).ip, PORTS.etcd, 60_000, `etcd on ${name}`);
  // pg1 bootstraps the cluster; pg2 joins once it runs (a base backup of pg1).
  // HOME: its own folder (libpq looks for a client certificate under ~/.postgresql, root's otherwise).
  const patroniEnv = (name: HostName) => ({ ...process.env, HOME: path.join(work, name) });
  add('patroni-pg1', host('pg1'), [...asPg, need('HOSTS_PATRONI'), path.join(work, 'pg1', 'patroni.yml')], patroniEnv('pg1'));
  const primaryDeadline = Date.now() + 120_000;
  while ((await httpsStatus(`https://${host('pg1').ip}:${PORTS.patroni}/primary`, pki.ca)) !== 200) {
    if (Date.now() > primaryDeadline) throw new Error('Patroni on pg1 did not become the primary within 120 s');
    await sleep(500);
  }
  add('patroni-pg2', host('pg2'), [...asPg, need('HOSTS_PATRONI'), path.join(work, 'pg2', 'patroni.yml')], patroniEnv('pg2'));
  // The SQL on psql's standard input: the role's password never on a command line.
  const psqlBin = fs.existsSync(path.join(pgBin, 'psql')) ? path.join(pgBin, 'psql') : 'psql';
  const psql = (sql: string) =>
    execFileSync(asPg[0]!, [...asPg.slice(1), psqlBin, '-h', path.join(work, 'pg1'), '-p', String(PORTS.pg), '-U', 'postgres', '-d', 'postgres', '-v', 'ON_ERROR_STOP=1', '-q'], { input: sql, stdio: ['pipe', 'ignore', 'pipe'], timeout: 60_000 });
  psql(`CREATE ROLE data_import LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD '${secrets.pg}'`);
  psql('CREATE DATABASE data_import_hosts OWNER data_import');
  const syncDeadline = Date.now() + 180_000;
  while ((await httpsStatus(`https://${host('pg2').ip}:${PORTS.patroni}/sync`, pki.ca)) !== 200) {
    if (Date.now() > syncDeadline) throw new Error('pg2 did not become the synchronous standby within 180 s');
    await sleep(1000);
  }

  // The stanza and the first full backup, taken on the primary once its standby is in sync: every
  // restore point of the run lies after it (the restore drill, test/hosts/run.ts pg-restore-drill).
  fs.mkdirSync(path.join(work, 'backup'), { recursive: true, mode: 0o700 });
  execFileSync('chown', [pgUser, path.join(work, 'backup')]);
  const backupLog = path.join(logs, 'pgbackrest.log');
  pgBackRest(pgUser, work, host('pg1'), ['stanza-create'], backupLog);
  const t0 = Date.now();
  pgBackRest(pgUser, work, host('pg1'), ['backup', '--type=full'], backupLog);
  say(`pgBackRest: stanza ${BACKUP_STANZA}, WAL archived from the primary, a full backup of pg1 in ${((Date.now() - t0) / 1000).toFixed(1)} s (repository ${path.join(work, 'backup')})`);

  // How every client reaches the primary: an HAProxy on its own host's loopback (each worker and
  // API host, and the runner's), checking Patroni's /primary on both nodes every second; a node
  // marked down has its sessions shut at once (on-marked-down shutdown-sessions), so every session
  // of the service notices a failover within the check's two seconds, and reconnects to the new
  // primary. Client-side TCP keepalives end a proxied session whose client went silent (~25 s,
  // as the server does for a direct one). One proxy per host: no proxy to lose between them.
  const pgProxyCfg = (bindPort: number) =>
    [
      'global',
      '  maxconn 1000',
      'defaults',
      '  mode tcp',
      '  timeout connect 2s',
      '  timeout client 30m',
      '  timeout server 30m',
      '  option clitcpka',
      '  clitcpka-idle 10s',
      '  clitcpka-intvl 5s',
      '  clitcpka-cnt 3',
      '  option srvtcpka',
      '  srvtcpka-idle 10s',
      '  srvtcpka-intvl 5s',
      '  srvtcpka-cnt 3',
      'listen postgres',
      `  bind 127.0.0.1:${bindPort}`,
      '  option httpchk GET /primary',
      '  http-check expect status 200',
      `  default-server inter 1s fall 2 rise 2 on-marked-down shutdown-sessions check-ssl verify required ca-file ${pki.ca} port ${PORTS.patroni}`,
      ...PG_NODES.map((n) => `  server ${n} ${host(n).ip}:${PORTS.pg} check`),
      '',
    ].join('\n');
  fs.writeFileSync(path.join(work, 'pgproxy.cfg'), pgProxyCfg(PORTS.pg));
  const runnerPgPort = await freePort();
  fs.writeFileSync(path.join(work, 'pgproxy-runner.cfg'), pgProxyCfg(runnerPgPort));
  addRoot('pgproxy-runner', [need('HOSTS_HAPROXY'), '-f', path.join(work, 'pgproxy-runner.cfg'), '-db']);
  await waitForPort('127.0.0.1', runnerPgPort, 30_000, "the runner's PostgreSQL proxy");

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
  // Through the HAProxy on the client's own loopback (the runner's on a port of its own).
  const dbUrlAt = (port: number) => `postgres://data_import:${encodeURIComponent(secrets.pg)}@127.0.0.1:${port}/data_import_hosts?sslmode=verify-full&sslrootcert=${encodeURIComponent(pki.ca)}`;
  const databaseUrl = dbUrlAt(runnerPgPort);
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
  say(`PostgreSQL on ${PG_NODES.join(' and ')} (Patroni, etcd on ${dcsHosts.join(', ')}; synchronous standby; role data_import, scram-sha-256, hostssl; an HAProxy on each client's loopback), Temporal ${temporalAddress} (mutual TLS), NATS ${natsUrl} (users, TLS; routes mutual TLS), SMTP relay ${smtp.ip} (STARTTLS, AUTH): up; database migrated, e-mails on`);

  const svcEnv = serviceProcessEnv({ ...env, DATABASE_URL: dbUrlAt(PORTS.pg) });
  for (const name of ['worker1', 'worker2', 'api1', 'api2'] as const) add(`pgproxy-${name}`, host(name), [need('HOSTS_HAPROXY'), '-f', path.join(work, 'pgproxy.cfg'), '-db']);
  for (const name of ['worker1', 'worker2', 'api1', 'api2'] as const) await waitForPortIn(host(name), PORTS.pg, 30_000, `the PostgreSQL proxy of ${name}`);
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
    pgUser,
    natsUsers,
    checker: {
      nats: natsSettings({ NATS_URL: natsUrl, NATS_USER: natsUsers.checker.user, NATS_PASSWORD: natsUsers.checker.password, NATS_INBOX_PREFIX: natsUsers.checker.inboxPrefix, NATS_TLS_CA: pki.ca }),
      temporal: { address: temporalAddress, tls: { serverRootCACertificate: fs.readFileSync(pki.ca), clientCertPair: { crt: fs.readFileSync(checkerClient.cert), key: fs.readFileSync(checkerClient.key) } } },
    },
    intruderTargets: {
      pg: { host: host('pg1').ip, port: PORTS.pg, database: 'data_import_hosts', serviceUser: 'data_import', patroniPort: PORTS.patroni, etcdPort: PORTS.etcd },
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
