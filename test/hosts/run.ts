/**
 * The several-hosts harness (issue 24; docs/scaling.md, "The reference deployment"): the real
 * service on hosts of one machine (test/hosts/net.ts, test/hosts/stack.ts) and, for each scenario,
 * a generated book migrated with `data-import migrate` through HAProxy while a fault is applied to
 * one host at a seeded random moment (docs/scaling.md, "The hosts harness", has the table):
 *   leader-cut           the worker host that leads the outbox relay (and runs imports) cut off
 *                        from everything — every packet dropped, no reset: a power or link loss —
 *                        for longer than every timeout (--cut, default 75 s), then healed
 *   worker-pg-cut        the relay leader's host cut off from PostgreSQL only (--cut)
 *   worker-temporal-cut  a worker host cut off from Temporal only (--cut)
 *   worker-nats-cut      the relay leader's host cut off from the three NATS nodes only (--cut)
 *   worker-freeze        the relay leader's host frozen (SIGSTOP of its processes) for --freeze
 *                        seconds, then resumed: a zombie acting on what it knew before
 *   api-cut              an API host cut off from everything for --api-cut seconds while the
 *                        migrate client sends through HAProxy
 *   nats-kill            the NATS node that leads the events stream killed (SIGKILL of its
 *                        processes), started again after --nats-outage seconds
 *   nats-partition       the stream leader's node cut off from the other two (--nats-cut)
 *   nats-cut             the NATS node the relay leader publishes through cut off from
 *                        everything (silent, no reset) for --nats-cut seconds, then healed
 *   pg-cut               both PostgreSQL hosts unreachable for --pg-cut seconds (30)
 *   pg-primary-kill      the primary's host killed, back after --pg-outage seconds (failover)
 *   pg-primary-cut       the primary's host cut off from everything for --pg-cut seconds
 *   pg-standby-kill      the standby's host killed, back after --pg-outage seconds
 *   pg-partition         the primary cut off from the standby only (both still reach etcd)
 *   pg-both-restart      the standby killed, the primary on alone for --pg-outage seconds, then
 *                        killed too; the old standby started first (it must not be promoted)
 *   pg-restore-drill     no fault: a restore point mid-migration, then the restore drill
 *                        (test/hosts/drill.ts: pgBackRest restore, reconcile, migrate again)
 * After each: the fault suite's invariants (test/faults/invariants.ts: every account PROCESSED
 * with post-import done, one account row, one `complete` and one `post_import.completed` each in
 * the outbox and on the stream under the same id, ImportStatus equal to the row, nothing FAILED at
 * the client), every customer e-mail delivered (the sink's count; a duplicate must carry the same
 * Message-ID), no write after the heal to an import that was final at the heal (a zombie's), and
 * the two stall figures, each against its bound (from the heal in pg-cut, which stops everyone):
 *   events   from the fault until the stream takes a new event again (bound 30 s)
 *   imports  from the fault until every import open at that moment has moved on (bound 60 s)
 * Started by scripts/hosts.sh (npm run test:hosts), which needs root, installs haproxy/iptables
 * and passes the binaries in HOSTS_* variables. Everything it creates is removed at the end, on a
 * failure and on Ctrl-C.
 */
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { Client, Connection } from '@temporalio/client';
import { jetstreamManager } from '@nats-io/jetstream';
import type { Knex } from 'knex';
import { createDb } from '../../db/knex';
import { connectNats, ensureStream, type NatsConnection } from '../../events/nats';
import { checkBook, waitForClosed, waitForQuiet } from '../faults/invariants';
import type { Attempt } from './intruder';
import { createHosts, cutLink, cutPeer, freeze, heal, host, Host, HostName, killAll, teardown, thaw } from './net';
import { DIST, httpsStatus, killRootServices, NATS_NODES, PG_NODES, PORTS, ROOT, sleep, Stack, startStack, stopSupervising } from './stack';
import { markRestorePoint, restoreDrill, type RestoreMark } from './drill';
import { checkCommits, CommitWriter } from './commits';

const SCENARIOS = ['leader-cut', 'worker-pg-cut', 'worker-temporal-cut', 'worker-nats-cut', 'worker-freeze', 'api-cut', 'nats-kill', 'nats-partition', 'nats-cut', 'pg-cut', 'pg-primary-kill', 'pg-primary-cut', 'pg-standby-kill', 'pg-partition', 'pg-both-restart', 'pg-restore-drill'] as const;
type Scenario = (typeof SCENARIOS)[number];
/**
 * Named orders of scenarios, run one after the other on the same hosts (the first leaves its
 * victim restarted for the second): each expands to its scenarios where --scenarios names it, so
 * a seed gives the same books and fault moments as the scenarios listed one by one.
 *   pg-kill-then-cut  pg-primary-kill then pg-primary-cut: the sequence in which a cut primary
 *                     took its lock back after the heal, and the promoted standby's commits were
 *                     lost (issue 48, seed ceo5 with Patroni on etcd3)
 */
const ORDERS: Record<string, Scenario[]> = { 'pg-kill-then-cut': ['pg-primary-kill', 'pg-primary-cut'] };
/** The PostgreSQL scenarios: a writer commits beside the book and every acknowledged commit is checked (test/hosts/commits.ts). */
const PG_SCENARIOS = new Set<Scenario>(['pg-cut', 'pg-primary-kill', 'pg-primary-cut', 'pg-standby-kill', 'pg-partition', 'pg-both-restart', 'pg-restore-drill']);
/** The short form (npm test, CI): the power-loss case and the zombie, a few minutes. */
const SHORT: { scenarios: Scenario[]; accounts: number; cut: number; freeze: number } = { scenarios: ['leader-cut', 'worker-freeze', 'pg-primary-kill'], accounts: 100, cut: 45, freeze: 45 };
/** Each scenario's prefix of the book's account numbers. */
const PREFIX: Record<Scenario, string> = {
  'leader-cut': 'LC',
  'worker-pg-cut': 'WP',
  'worker-temporal-cut': 'WT',
  'worker-nats-cut': 'WN',
  'worker-freeze': 'WF',
  'api-cut': 'AC',
  'nats-kill': 'NK',
  'nats-partition': 'NP',
  'nats-cut': 'NC',
  'pg-cut': 'PC',
  'pg-primary-kill': 'PK',
  'pg-primary-cut': 'PP',
  'pg-standby-kill': 'PS',
  'pg-partition': 'PN',
  'pg-both-restart': 'PB',
  'pg-restore-drill': 'RD',
};
const SUPPLIER = 'DEMO_ENERGY';
const STREAM = 'EVENTS';
/** The relay's advisory lock key (events/lease.ts LEADER_LOCK_KEY). */
const LEADER_LOCK_KEY = 0x0da7a1;
const BOUND_EVENTS_MS = 30_000;
const BOUND_IMPORTS_MS = 60_000;
const WORK = '/tmp/dih-run';

interface Options {
  accounts: number;
  scenarios: Scenario[];
  cut: number;
  freeze: number;
  apiCut: number;
  pgCut: number;
  pgOutage: number;
  natsOutage: number;
  natsCut: number;
  short: boolean;
  seed: string;
  /** Several seeds in one go on the same hosts (--seeds): the scenarios run once per seed. */
  seeds: string[] | null;
  /** With --seeds: every other seed runs the scenarios in reverse order. */
  bothOrders: boolean;
  timeout: number;
}

interface Result {
  scenario: Scenario;
  /** The seed of its book and fault moment. */
  seed: string;
  accounts: number;
  fault: string;
  at: number | null;
  eventsMs: number | null;
  importsMs: number | null;
  /** PostgreSQL failovers: from the fault until the standby answered as the primary. */
  failoverMs: number | null;
  /** The commit checker's figures (PostgreSQL scenarios): acknowledged, lost, standby diverged. */
  commits: { acknowledged: number; lost: number; diverged: boolean } | null;
  openAtFault: number;
  migrateSeconds: number;
  emails: string;
  notes: string[];
  problems: string[];
}

const say = (line: string) => process.stderr.write(`[hosts] ${line}\n`);

/**
 * The intruder check (issue 39): a host of the subnet without any credential of the deployment
 * (test/hosts/intruder.ts, run inside dih-intruder) tries PostgreSQL, NATS, Temporal, SMTP and the
 * API; every attempt must be refused. Returns its lines and the attempts that got in.
 */
async function checkIntruder(stack: Stack): Promise<{ lines: string[]; problems: string[] }> {
  const child = spawn('ip', ['netns', 'exec', host('intruder').ns, process.execPath, '--import', 'tsx', path.join(__dirname, 'intruder.ts'), JSON.stringify(stack.intruderTargets)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += String(d)));
  child.stderr.on('data', (d) => (err += String(d)));
  const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  clearTimeout(timer);
  const last = out.trim().split('\n').pop() ?? '';
  let attempts: Attempt[];
  try {
    attempts = (JSON.parse(last) as { attempts: Attempt[] }).attempts;
  } catch {
    return { lines: err.trim().split('\n'), problems: [`the intruder check did not finish (exit ${code}): ${err.trim().split('\n').slice(-3).join(' | ')}`] };
  }
  const lines = attempts.map((a) => `intruder: ${a.entered ? 'ENTERED' : 'refused'}  ${a.link}: ${a.request} -> ${a.answer}`);
  const problems = attempts.filter((a) => a.entered).map((a) => `a host without credentials entered ${a.link}: ${a.request} -> ${a.answer}`);
  for (const link of ['PostgreSQL', 'NATS', 'Temporal', 'SMTP', 'API'] as const) {
    if (!attempts.some((a) => a.link === link)) problems.push(`the intruder check tried nothing on ${link}`);
  }
  return { lines, problems };
}

function int(min: number, max: number) {
  return (v: string) => {
    const n = Number(v);
    if (!/^\d+$/.test(v) || n < min || n > max) throw new InvalidArgumentError(`expected an integer from ${min} to ${max}.`);
    return n;
  };
}

/** A seeded generator (mulberry32), as the fault suite's. */
function rng(seed: string): () => number {
  let a = crypto.createHash('sha256').update(seed).digest().readUInt32LE(0);
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The CLI processes running (the migrate client): killed with the hosts on a failure or Ctrl-C. */
const cliChildren = new Set<ChildProcess>();

function runCli(args: string[], env: NodeJS.ProcessEnv, logFile: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const out = fs.openSync(logFile, 'a');
    const child = spawn(process.execPath, [path.join(DIST, 'cli', 'main.js'), ...args], { env, stdio: ['ignore', out, out] });
    fs.closeSync(out);
    cliChildren.add(child);
    child.on('error', reject);
    child.on('exit', (code) => {
      cliChildren.delete(child);
      resolve(code);
    });
  });
}

/** Everything the run started: the CLI children, then the hosts (their processes, namespaces, bridge). */
function removeAll(): void {
  stopSupervising();
  for (const c of cliChildren) c.kill('SIGKILL');
  killRootServices();
  teardown();
}

const fmt = (ms: number | null) => (ms === null ? '—' : (ms / 1000).toFixed(1));

/** A NATS node's /connz, read on the node's own loopback (monitoring is not open to the subnet); null when it does not answer. */
function natsConnz(h: Host): { connections?: { ip: string }[] } | null {
  const r = spawnSync('ip', ['netns', 'exec', h.ns, 'curl', '-fsS', '--max-time', '2', `http://127.0.0.1:${PORTS.natsMonitor}/connz`], { encoding: 'utf8', timeout: 5000 });
  try {
    return r.status === 0 ? (JSON.parse(r.stdout) as { connections?: { ip: string }[] }) : null;
  } catch {
    return null;
  }
}

/** The PostgreSQL node Patroni names the primary (its /primary answers 200), if any. */
async function pgPrimary(stack: Stack): Promise<Host | null> {
  for (const h of PG_NODES.map(host)) if ((await httpsStatus(`https://${h.ip}:${PORTS.patroni}/primary`, stack.pki.ca)) === 200) return h;
  return null;
}

/** Whether a node's PostgreSQL is in recovery (a standby: it takes no write), asked on its own socket. */
async function pgIsStandby(stack: Stack, h: Host): Promise<string> {
  const r = spawnSync('setpriv', [`--reuid=${stack.pgUser}`, `--regid=${stack.pgUser}`, '--init-groups', 'psql', '-h', path.join(stack.work, h.name), '-p', String(PORTS.pg), '-U', 'postgres', '-d', 'postgres', '-Atc', 'SELECT pg_is_in_recovery()'], { encoding: 'utf8', timeout: 10_000 });
  return r.status === 0 ? (r.stdout.trim() === 't' ? 'yes' : 'NO (it takes writes)') : `? (${(r.stderr || '').trim().slice(0, 80)})`;
}

/** The sessions on the server of a host's address that began before `since`, by application_name. */
async function sessionsOpenSince(db: Knex, h: Host, since: number): Promise<{ app: string; n: number }[]> {
  const r = await db.raw(
    `SELECT coalesce(application_name, '') AS app, count(*)::int AS n FROM pg_stat_activity
      WHERE client_addr = ?::inet AND backend_start < to_timestamp(? / 1000.0) GROUP BY 1 ORDER BY 1`,
    [h.ip, since],
  );
  return r.rows as { app: string; n: number }[];
}

/** The host whose session holds the relay's leader lock (pg_stat_activity.client_addr), if any. */
async function leaderIp(db: Knex): Promise<string | null> {
  const r = await db.raw(
    `SELECT host(a.client_addr) AS ip FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.locktype = 'advisory' AND l.classid = 0 AND l.objid = ? AND l.objsubid = 1 AND l.granted`,
    [LEADER_LOCK_KEY],
  );
  return (r.rows[0]?.ip as string | undefined) ?? null;
}

/**
 * The events stream's last message: its sequence and when the stream stored it (ms epoch), or
 * null while the stream does not answer. Every host shares the machine's clock, so a message
 * stored after a fault is told by its time alone, whatever the stream held before.
 */
async function lastMessage(probes: NatsConnection[]): Promise<{ seq: number; at: number } | null> {
  // Asked through a connection to each server at once: one to a silent server does not answer.
  const answers = await Promise.all(
    probes.map(async (nc) => {
      try {
        const jsm = await jetstreamManager(nc, { timeout: 2000 });
        const s = (await jsm.streams.info(STREAM)).state;
        return { seq: s.last_seq, at: Date.parse(s.last_ts) };
      } catch {
        return null;
      }
    }),
  );
  return answers.reduce<{ seq: number; at: number } | null>((best, a) => (a && (!best || a.seq > best.seq) ? a : best), null);
}

/** The server name of the events stream's leader. */
async function streamLeader(probes: NatsConnection[]): Promise<string | null> {
  for (const nc of probes) {
    try {
      const jsm = await jetstreamManager(nc, { timeout: 2000 });
      const leader = (await jsm.streams.info(STREAM)).cluster?.leader;
      if (leader) return leader;
    } catch {
      /* the next server */
    }
  }
  return null;
}

/**
 * What changes when an import moves on: its row (status, step, run, modified_at), or one more of
 * its customer e-mails sent (an import sending several e-mails keeps its row as it is meanwhile).
 */
const SIGNATURE = `import_processes.status || '|' || coalesce(current_step, '') || '|' || run || '|' || import_processes.modified_at::text || '|' ||
  (SELECT count(*) FROM customer_email_queue e WHERE e.import_supplier = import_processes.import_supplier
     AND e.external_account_number = import_processes.external_account_number AND e.status <> 'QUEUED') AS sig`;

/**
 * The book's imports not final yet, each with what would change when it moves on; not those
 * waiting for their schedule window (a generated book has a few), which no fault holds up.
 */
async function openImports(db: Knex, prefix: string): Promise<Map<string, string>> {
  const rows: { ext: string; sig: string }[] = await db('import_processes')
    .select('external_account_number as ext', db.raw(SIGNATURE))
    .where({ 'import_processes.import_supplier': SUPPLIER })
    .where('external_account_number', 'like', `${prefix}%`)
    .where((q) => q.whereNull('current_step').orWhereNot('current_step', 'waiting_for_window'))
    .where((q) => q.whereIn('import_processes.status', ['PENDING', 'IN_PROGRESS']).orWhere((q2) => q2.where({ 'import_processes.status': 'PROCESSED' }).whereNotIn('current_step', ['done', 'post_import_failed'])));
  return new Map(rows.map((r) => [r.ext, r.sig]));
}

/** Current signature of the given imports (final ones included). */
async function signatures(db: Knex, exts: string[]): Promise<Map<string, string>> {
  if (exts.length === 0) return new Map();
  const rows: { ext: string; sig: string }[] = await db('import_processes')
    .select('external_account_number as ext', db.raw(SIGNATURE))
    .where({ 'import_processes.import_supplier': SUPPLIER })
    .whereIn('external_account_number', exts);
  return new Map(rows.map((r) => [r.ext, r.sig]));
}

/**
 * The two stall figures after a fault at `since`: ms until the stream stored an event again (its
 * last message stored after `since`), and ms until every import open at the fault had moved on
 * (its row changed). Both polled every 200 ms until found or `untilMs` passed.
 */
/**
 * Where the imports still waiting stand (the stall's cause, issue 38): each one's step, its
 * customer e-mails (queued, attempts, last attempt, sent, relative to the fault) and its
 * workflow's pending activities (attempt, state, last failure, last heartbeat) as Temporal has them.
 */
async function diagnoseWaiting(db: Knex, temporal: Client, exts: string[], since: number): Promise<string[]> {
  const rel = (d: Date | string | null) => (d === null ? '—' : `${((new Date(d).getTime() - since) / 1000).toFixed(1)}`);
  const lines: string[] = [];
  for (const ext of exts.slice(0, 4)) {
    const p = (await db('import_processes').where({ import_supplier: SUPPLIER, external_account_number: ext }).first('workflow_id', 'status', 'current_step', 'modified_at')) as { workflow_id: string; status: string; current_step: string | null; modified_at: Date } | undefined;
    if (!p) continue;
    const mails = (await db('customer_email_queue').where({ import_supplier: SUPPLIER, external_account_number: ext }).orderBy('id')) as { id: number; status: string; attempts: number; created_at: Date; last_attempt_at: Date | null; sent_at: Date | null; last_smtp_response: string | null }[];
    const d = await temporal.workflow.getHandle(p.workflow_id).describe().catch(() => null);
    const pending = ((d?.raw.pendingActivities ?? []) as { activityType?: { name?: string | null } | null; attempt?: number | null; state?: unknown; lastFailure?: { message?: string | null } | null; lastHeartbeatTime?: { seconds?: unknown } | null; lastStartedTime?: { seconds?: unknown } | null }[]).map((a) => {
      const t = (x: { seconds?: unknown } | null | undefined) => (x?.seconds ? rel(new Date(Number(x.seconds) * 1000)) : '—');
      return `${a.activityType?.name ?? '?'} attempt ${a.attempt ?? '?'} state ${String(a.state)} started ${t(a.lastStartedTime)} heartbeat ${t(a.lastHeartbeatTime)}${a.lastFailure?.message ? ` last failure "${a.lastFailure.message.slice(0, 160)}"` : ''}`;
    });
    lines.push(
      `${ext}: ${p.status} ${p.current_step ?? ''} (row modified ${rel(p.modified_at)} s); e-mails ${mails.map((m) => `#${m.id} ${m.status} attempts ${m.attempts} queued ${rel(m.created_at)} last attempt ${rel(m.last_attempt_at)} sent ${rel(m.sent_at)}${m.last_smtp_response && m.status !== 'SENT' ? ` "${m.last_smtp_response.slice(0, 80)}"` : ''}`).join('; ') || 'none'}; pending: ${pending.join('; ') || 'none'}`,
    );
  }
  return lines;
}

async function measureStalls(o: { db: Knex; probes: NatsConnection[]; since: number; open: Map<string, string>; untilMs: number; temporal: Client }) {
  let diagnosis: string[] = [];
  let eventsMs: number | null = null;
  let importsMs: number | null = o.open.size === 0 ? 0 : null;
  const waiting = new Map(o.open);
  /** The last imports to move on: where they stood at the fault, how long they took. */
  const moved: { ext: string; from: string; ms: number }[] = [];
  const deadline = o.since + o.untilMs;
  while ((eventsMs === null || importsMs === null) && Date.now() < deadline) {
    if (eventsMs === null) {
      const last = await lastMessage(o.probes);
      if (last && last.at > o.since) eventsMs = last.at - o.since;
    }
    if (importsMs === null) {
      const now = await signatures(o.db, [...waiting.keys()]).catch(() => null);
      if (now) {
        for (const [ext, sig] of now) {
          const from = waiting.get(ext);
          if (from === undefined || from === sig) continue;
          waiting.delete(ext);
          moved.push({ ext, from: from.split('|').slice(0, 2).join(' '), ms: Date.now() - o.since });
        }
      }
      if (waiting.size === 0) importsMs = Date.now() - o.since;
      // Where the imports still waiting 40 s after the fault stand (seen once: the bound is 60 s).
      if (importsMs === null && diagnosis.length === 0 && Date.now() - o.since > 40_000) {
        diagnosis = await diagnoseWaiting(o.db, o.temporal, [...waiting.keys()], o.since).catch((err: unknown) => [`the diagnosis failed: ${String(err)}`]);
        if (diagnosis.length === 0) diagnosis = ['—'];
      }
    }
    await sleep(200);
  }
  const slowest = moved
    .slice(-3)
    .reverse()
    .map((m) => `${m.ext} (${m.from}) ${fmt(m.ms)} s`);
  return { eventsMs, importsMs, stillWaiting: [...waiting.keys()], slowest, diagnosis };
}

/** One fault of a scenario: applied at the moment, healed after durationMs. */
interface Fault {
  label: string;
  durationMs: number;
  apply(): void;
  heal(): Promise<void> | void;
  /** A fault that stops everyone (PostgreSQL gone): the stalls count from the heal. */
  measureFromHeal?: boolean;
  /** A line of its own for the scenario's note, after the heal (e.g. a NATS node's rejoin). */
  after?(): Promise<string>;
  /** The time from the fault until the standby answered as the primary (PostgreSQL failovers). */
  failover?(): Promise<number | null>;
  /**
   * A host cut off from PostgreSQL for longer than the server's keepalives of the service's sessions
   * (~25 s): every session it had open at the fault must be gone from the server by the heal (a
   * session whose client is gone holds a connection slot until the server ends it: issue 38).
   */
  sessionsGoneBy?: Host;
  /** Not a fault (the restore drill's restore point): the stall figures are noted, not held to their bounds. */
  notAFault?: boolean;
  /**
   * measureFromHeal: the moment the service could go on again (e.g. the first primary answering),
   * when it comes before the heal ends; the heal's end otherwise.
   */
  healedAt?(): number | null;
  /** Resolves when the fault should be healed before durationMs (e.g. the book about to finish). */
  endsEarly?(): Promise<void>;
  /** The scenario's own invariants, checked after the book (each string a problem). */
  check?(): Promise<string[]>;
}

const WORKERS: HostName[] = ['worker1', 'worker2'];

/** The worker host whose session holds the relay's leader lock. */
async function leaderWorker(db: Knex): Promise<Host | string> {
  const ip = await leaderIp(db);
  return WORKERS.map(host).find((h) => h.ip === ip) ?? `no worker host holds the relay's leader lock (holder ${ip ?? 'none'})`;
}

/** Chooses the victim of a scenario and says what its fault does; a string is why it cannot be applied. */
async function planFault(scenario: Scenario, c: { db: Knex; probes: NatsConnection[]; o: Options; random: () => number; stack: Stack; nc: NatsConnection; prefix: string; drill: { mark: RestoreMark | string | null } }): Promise<Fault | string> {
  const { db, o } = c;
  const cutFor = (victim: Host, what: string, seconds: number, peers?: Host[]): Fault => ({
    label: `${victim.name} ${what} for ${seconds} s`,
    durationMs: seconds * 1000,
    apply: () => (peers ? peers.forEach((p) => cutPeer(victim, p)) : cutLink(victim)),
    heal: () => heal(victim),
  });
  switch (scenario) {
    case 'leader-cut':
    case 'worker-pg-cut':
    case 'worker-nats-cut':
    case 'worker-freeze': {
      const victim = await leaderWorker(db);
      if (typeof victim === 'string') return victim;
      if (scenario === 'leader-cut') return { ...cutFor(victim, '(relay leader) cut off from everything', o.cut), sessionsGoneBy: victim };
      if (scenario === 'worker-pg-cut') return { ...cutFor(victim, '(relay leader) cut off from PostgreSQL only', o.cut, PG_NODES.map(host)), sessionsGoneBy: victim };
      if (scenario === 'worker-nats-cut') return cutFor(victim, '(relay leader) cut off from the three NATS nodes only', o.cut, NATS_NODES.map(host));
      return { label: `${victim.name} (relay leader) frozen (SIGSTOP) for ${o.freeze} s`, durationMs: o.freeze * 1000, apply: () => void freeze(victim), heal: () => void thaw(victim) };
    }
    case 'worker-temporal-cut': {
      const victim = host(WORKERS[c.random() < 0.5 ? 0 : 1]!);
      return cutFor(victim, 'cut off from Temporal only', o.cut, [host('temporal')]);
    }
    case 'api-cut': {
      const victim = host(c.random() < 0.5 ? 'api1' : 'api2');
      return cutFor(victim, 'cut off from everything (mid-request: the migrate client sends all the time)', o.apiCut);
    }
    case 'pg-cut':
      // Both PostgreSQL hosts cut off: no primary for anyone.
      return {
        label: `pg1 and pg2 unreachable (cut off from everything) for ${o.pgCut} s`,
        durationMs: o.pgCut * 1000,
        apply: () => PG_NODES.map(host).forEach(cutLink),
        heal: () => PG_NODES.map(host).forEach(heal),
        measureFromHeal: true,
      };
    case 'pg-primary-kill':
    case 'pg-primary-cut':
    case 'pg-standby-kill': {
      const primary = await pgPrimary(c.stack);
      if (!primary) return 'no PostgreSQL node answers as the primary (Patroni /primary)';
      const standby = host(PG_NODES.find((n) => n !== primary.name)!);
      const failover = { from: primary, to: standby, ms: null as number | null };
      const watchFailover = async (since: number, limitMs: number) => {
        while (Date.now() - since < limitMs) {
          if ((await httpsStatus(`https://${standby.ip}:${PORTS.patroni}/primary`, c.stack.pki.ca, 1000)) === 200) return Date.now() - since;
          await sleep(250);
        }
        return null;
      };
      const rejoin = async (who: Host) => {
        const t0 = Date.now();
        for (;;) {
          if ((await httpsStatus(`https://${who.ip}:${PORTS.patroni}/sync`, c.stack.pki.ca, 1000)) === 200) return Date.now() - t0;
          if (Date.now() - t0 > 180_000) return null;
          await sleep(500);
        }
      };
      const restartHost = async (who: Host) => {
        for (const svc of [`etcd-${who.name}`, `patroni-${who.name}`]) {
          await c.stack.services.get(svc)!.exited();
          c.stack.restart(svc);
        }
      };
      let rejoined: number | null = null;
      let since = 0;
      let watching: Promise<number | null> = Promise.resolve(null);
      if (scenario === 'pg-standby-kill') {
        return {
          label: `${standby.name} (the synchronous standby) killed (every process of its host), down ${o.pgOutage} s`,
          durationMs: o.pgOutage * 1000,
          apply: () => void killAll(standby),
          heal: async () => {
            await restartHost(standby);
            rejoined = await rejoin(standby);
          },
          after: async () => `; ${primary.name} stayed the primary (${(await httpsStatus(`https://${primary.ip}:${PORTS.patroni}/primary`, c.stack.pki.ca)) === 200 ? 'yes' : 'NO'}); ${standby.name} back as the synchronous standby ${rejoined === null ? 'not within 180 s' : `${fmt(rejoined)} s after its restart`}`,
        };
      }
      const kill = scenario === 'pg-primary-kill';
      return {
        label: kill ? `${primary.name} (the primary) killed (every process of its host: PostgreSQL, Patroni, etcd), down ${o.pgOutage} s` : `${primary.name} (the primary) cut off from everything for ${o.pgCut} s`,
        durationMs: (kill ? o.pgOutage : o.pgCut) * 1000,
        apply: () => {
          if (kill) killAll(primary);
          else cutLink(primary);
          since = Date.now();
          watching = watchFailover(since, 120_000).then((ms) => (failover.ms = ms));
        },
        heal: async () => {
          if (kill) await restartHost(primary);
          else heal(primary);
          // The old primary must come back as a standby (fenced: it never takes a write again).
          rejoined = await rejoin(primary);
        },
        failover: () => watching,
        after: async () => {
          const fenced = await pgIsStandby(c.stack, primary);
          return `; ${standby.name} promoted ${failover.ms === null ? 'not within 120 s' : `${fmt(failover.ms)} s after the fault`}; ${primary.name} back as the synchronous standby ${rejoined === null ? 'not within 180 s' : `${fmt(rejoined)} s after the heal`}, in recovery: ${fenced}`;
        },
      };
    }
    case 'pg-partition': {
      // The primary cut off from the standby only: both still reach etcd (dcs keeps the quorum
      // whichever side its leader is on), the workers and the APIs.
      const primary = await pgPrimary(c.stack);
      if (!primary) return 'no PostgreSQL node answers as the primary (Patroni /primary)';
      const standby = host(PG_NODES.find((n) => n !== primary.name)!);
      const seen = { primaries: new Set<string>(), syncDropped: null as number | null, rejoined: null as number | null };
      let since = 0;
      let watching = true;
      const watch = (async () => {
        while (watching) {
          const p = await pgPrimary(c.stack);
          if (p) seen.primaries.add(p.name);
          if (since && seen.syncDropped === null && (await httpsStatus(`https://${standby.ip}:${PORTS.patroni}/sync`, c.stack.pki.ca, 1000)) !== 200) seen.syncDropped = Date.now() - since;
          await sleep(500);
        }
      })();
      return {
        label: `${primary.name} (the primary) cut off from ${standby.name} (the standby) only for ${o.pgCut} s`,
        durationMs: o.pgCut * 1000,
        apply: () => {
          cutPeer(primary, standby);
          since = Date.now();
        },
        heal: async () => {
          heal(primary);
          const t0 = Date.now();
          for (;;) {
            if ((await httpsStatus(`https://${standby.ip}:${PORTS.patroni}/sync`, c.stack.pki.ca, 1000)) === 200) {
              seen.rejoined = Date.now() - t0;
              break;
            }
            if (Date.now() - t0 > 180_000) break;
            await sleep(500);
          }
          watching = false;
          await watch;
        },
        after: async () => {
          const still = (await pgPrimary(c.stack))?.name ?? 'none';
          const fenced = await pgIsStandby(c.stack, standby);
          return `; primaries seen during the partition and after: ${[...seen.primaries].join(', ') || 'none'} (${still} now); ${standby.name} dropped from the synchronous standby ${seen.syncDropped === null ? 'never' : `${fmt(seen.syncDropped)} s after the cut`}, back as the synchronous standby ${seen.rejoined === null ? 'not within 180 s' : `${fmt(seen.rejoined)} s after the heal`}, in recovery: ${fenced}`;
        },
        check: async () => (seen.primaries.size === 1 && seen.primaries.has(primary.name) ? [] : [`the primary changed in a partition between the two PostgreSQL hosts only: ${[...seen.primaries].join(', ')}`]),
      };
    }
    case 'pg-both-restart': {
      // Both PostgreSQL hosts lost, in the worst order: the standby first, the primary going on
      // alone (Patroni drops the standby from synchronous_standby_names: not strict), committing
      // imports that only it holds; then the primary; then the old standby started first — the
      // one with less WAL, and without those commits. Promoting it would lose them: Patroni must
      // not (it is no longer the synchronous standby), and wait for the old primary instead.
      const primary = await pgPrimary(c.stack);
      if (!primary) return 'no PostgreSQL node answers as the primary (Patroni /primary)';
      const standby = host(PG_NODES.find((n) => n !== primary.name)!);
      const restartHost = async (who: Host) => {
        for (const svc of [`etcd-${who.name}`, `patroni-${who.name}`]) {
          await c.stack.services.get(svc)!.exited();
          c.stack.restart(svc);
        }
      };
      const seen = { aloneMs: 0, finalAtKill: null as Map<string, string> | null, standbyPromoted: false, firstPrimary: null as { name: string; ms: number } | null, rejoined: null as number | null, processedAlone: 0 };
      let since = 0;
      let primaryKilledAt = 0;
      let watching: Promise<void> = Promise.resolve();
      const STANDBY_FIRST_S = 30;
      return {
        label: `both PostgreSQL hosts killed: ${standby.name} (the standby), then ${primary.name} (the primary) after it went on alone for ${o.pgOutage} s (or less: until fewer than half of the book is left to finish); ${standby.name} started first, ${primary.name} ${STANDBY_FIRST_S} s later`,
        durationMs: o.pgOutage * 1000,
        measureFromHeal: true,
        // The primary is killed while there is still work: a book finished while it ran alone
        // leaves nothing to resume after the restart, and no event to measure (run ha38-e). Half
        // the book: the commits that waited while Patroni dropped the lost standby all return at
        // once, and a third was finished between this check and the kill (seed t10.3, 60 accounts
        // under load: 59 of 60 final at the kill, no event left to resume).
        endsEarly: async () => {
          const few = Math.max(5, Math.ceil(c.o.accounts / 2));
          for (;;) {
            const final = (await finalImports(c.db, c.prefix).catch(() => null))?.size ?? 0;
            if (c.o.accounts - final < few) return;
            await sleep(250);
          }
        },
        apply: () => {
          killAll(standby);
          since = Date.now();
        },
        heal: async () => {
          // What the primary committed alone: the imports final now must all be there at the end.
          const processedBefore = await c.db('import_processes').where({ status: 'PROCESSED' }).where('external_account_number', 'like', `${c.prefix}%`).count<{ n: string }[]>('* as n').catch(() => null);
          seen.finalAtKill = await finalImports(c.db, c.prefix).catch(() => null);
          seen.aloneMs = Date.now() - since;
          seen.processedAlone = Number(processedBefore?.[0]?.n ?? 0);
          killAll(primary);
          primaryKilledAt = Date.now();
          await sleep(5000);
          await restartHost(standby);
          const standbyStarted = Date.now();
          // The old standby alone for longer than the leader key's ttl: it must not become the primary.
          while (Date.now() - standbyStarted < STANDBY_FIRST_S * 1000) {
            if ((await httpsStatus(`https://${standby.ip}:${PORTS.patroni}/primary`, c.stack.pki.ca, 1000)) === 200) seen.standbyPromoted = true;
            await sleep(500);
          }
          await restartHost(primary);
          // The heal ends when a primary answers again: the stall figures count from the failover.
          while (Date.now() - primaryKilledAt < 240_000) {
            const p = await pgPrimary(c.stack);
            if (p) {
              seen.firstPrimary = { name: p.name, ms: Date.now() - primaryKilledAt };
              break;
            }
            await sleep(250);
          }
          watching = (async () => {
            const t0 = Date.now();
            while (Date.now() - t0 < 180_000) {
              if ((await httpsStatus(`https://${standby.ip}:${PORTS.patroni}/sync`, c.stack.pki.ca, 1000)) === 200 || (await httpsStatus(`https://${primary.ip}:${PORTS.patroni}/sync`, c.stack.pki.ca, 1000)) === 200) {
                seen.rejoined = Date.now() - t0;
                break;
              }
              await sleep(500);
            }
          })();
        },
        // The stall figures count from the first primary after the kill, not from the end of the
        // heal (the harness's own reconnect may come seconds later, the book done meanwhile: ha38-f).
        healedAt: () => (seen.firstPrimary ? primaryKilledAt + seen.firstPrimary.ms : null),
        failover: async () => {
          await watching;
          return seen.firstPrimary ? seen.firstPrimary.ms : null;
        },
        after: async () => {
          await watching;
          return `; ${primary.name} went on alone ${fmt(seen.aloneMs)} s (${seen.processedAlone} PROCESSED when it was killed, ${seen.finalAtKill?.size ?? '?'} final); ${standby.name}, started first, ${seen.standbyPromoted ? 'WAS PROMOTED' : `stayed a replica for ${STANDBY_FIRST_S} s (not the synchronous standby: not promoted)`}; first primary after the kill: ${seen.firstPrimary ? `${seen.firstPrimary.name} ${fmt(seen.firstPrimary.ms)} s after ${primary.name}'s kill` : 'none within 240 s'}; a synchronous standby again ${seen.rejoined === null ? 'not within 180 s' : `${fmt(seen.rejoined)} s later`}, ${standby.name} in recovery: ${await pgIsStandby(c.stack, standby)}`;
        },
        check: async () => {
          await watching;
          const out: string[] = [];
          if (seen.standbyPromoted) out.push(`${standby.name}, started first without the primary's last commits, was promoted`);
          if (!seen.finalAtKill) out.push("the imports final at the primary's kill could not be read");
          else {
            const now = await finalImports(c.db, c.prefix);
            const lost = [...seen.finalAtKill.keys()].filter((ext) => !now.has(ext));
            out.push(...lost.slice(0, 10).map((ext) => `${ext}: final when ${primary.name} was killed, not final at the end (a committed import lost)`));
          }
          return out;
        },
      };
    }
    case 'pg-restore-drill': {
      // No fault: a named restore point, taken mid-migration; the drill runs after the book
      // (test/hosts/drill.ts): restored there on a scratch host, reconciled, migrated again.
      const primary = await pgPrimary(c.stack);
      if (!primary) return 'no PostgreSQL node answers as the primary (Patroni /primary)';
      const name = `drill-${crypto.randomBytes(3).toString('hex')}`;
      return {
        label: `restore point ${name} taken on ${primary.name} (the primary), mid-migration`,
        durationMs: 1000,
        notAFault: true,
        apply: () => {
          c.drill.mark = markRestorePoint(c.stack, primary, name, c.prefix);
        },
        heal: () => undefined,
      };
    }
    case 'nats-partition': {
      const leader = await streamLeader(c.probes);
      if (!leader || !NATS_NODES.includes(leader as HostName)) return `the events stream has no leader among ${NATS_NODES.join(', ')} (${leader ?? 'none'})`;
      const victim = host(leader as HostName);
      const others = NATS_NODES.filter((n) => n !== leader).map(host);
      return {
        ...cutFor(victim, `(stream leader) partitioned from ${others.map((h) => h.name).join(' and ')}`, o.natsCut, others),
        after: async () => `; stream leader after the heal ${(await streamLeader(c.probes)) ?? '?'}`,
      };
    }
    case 'nats-cut': {
      // The node the relay leader's worker is connected to (its /connz lists the worker's address).
      const relayIp = await leaderIp(db);
      let victim: Host | undefined;
      for (const h of NATS_NODES.map(host)) {
        // Monitoring listens on the node's loopback only: read inside its namespace.
        const connz = natsConnz(h);
        if (connz?.connections?.some((x) => x.ip === relayIp)) victim = h;
      }
      if (!victim) return `no NATS node has a connection of the relay leader (${relayIp ?? 'none'})`;
      return cutFor(victim, "(the relay leader's server) cut off from everything", o.natsCut);
    }
    case 'nats-kill': {
      const leader = await streamLeader(c.probes);
      const victim = host((NATS_NODES.includes(leader as HostName) ? leader : 'nats1') as HostName);
      let rejoined: number | null = null;
      return {
        label: `${victim.name} (stream leader) killed, down ${o.natsOutage} s`,
        durationMs: o.natsOutage * 1000,
        apply: () => void killAll(victim),
        heal: async () => {
          await c.stack.services.get(victim.name)!.exited();
          c.stack.restart(victim.name);
          const back = Date.now();
          for (;;) {
            const i = await (await jetstreamManager(c.nc, { timeout: 2000 })).streams.info(STREAM).catch(() => null);
            const replica = i?.cluster?.replicas?.find((x) => x.name === victim.name);
            if (i?.cluster?.leader === victim.name || (replica && replica.current)) {
              rejoined = Date.now() - back;
              break;
            }
            if (Date.now() - back > 60_000) break;
            await sleep(250);
          }
        },
        after: async () => `; ${victim.name} restarted, its replica current again ${rejoined === null ? 'not within 60 s' : `${fmt(rejoined)} s later`}`,
      };
    }
  }
}

/**
 * The book's imports final (PROCESSED, post-import done), each with what a late write would change:
 * its row (status, step, run, modified_at) and its number of outbox rows. Taken when a fault heals,
 * compared at the end: a worker that comes back from a cut or a freeze acting on what it knew
 * before (a zombie) must not write to an import another worker finished meanwhile.
 */
async function finalImports(db: Knex, prefix: string): Promise<Map<string, string>> {
  const rows: { ext: string; sig: string }[] = await db('import_processes')
    .select(
      'external_account_number as ext',
      db.raw(`status || '|' || current_step || '|' || run || '|' || modified_at::text || '|' || (SELECT count(*) FROM outbox o WHERE o.ordering_key = import_processes.workflow_id) AS sig`),
    )
    .where({ import_supplier: SUPPLIER, status: 'PROCESSED', current_step: 'done' })
    .where('external_account_number', 'like', `${prefix}%`);
  return new Map(rows.map((r) => [r.ext, r.sig]));
}

/** E-mails of the book: every queued one SENT and received by the sink; duplicates by Message-ID. */
async function checkEmails(db: Knex, stack: Stack, prefix: string, problems: string[]): Promise<string> {
  const deadline = Date.now() + 120_000;
  let rows: { status: string; message_id: string | null; external_account_number: string }[] = [];
  for (;;) {
    rows = await db('customer_email_queue').select('status', 'message_id', 'external_account_number').where('external_account_number', 'like', `${prefix}%`);
    if (!rows.some((r) => r.status === 'QUEUED') || Date.now() > deadline) break;
    await sleep(500);
  }
  const received = (await (await fetch(stack.smtpMessagesUrl, { headers: { authorization: `Bearer ${stack.smtpMessagesToken}` }, signal: AbortSignal.timeout(10_000) })).json()) as { messageId: string }[];
  const counts = new Map<string, number>();
  for (const m of received) counts.set(m.messageId, (counts.get(m.messageId) ?? 0) + 1);
  const sent = rows.filter((r) => r.status === 'SENT');
  let delivered = 0;
  let duplicates = 0;
  for (const r of rows) {
    if (r.status !== 'SENT') {
      if (problems.length < 50) problems.push(`${r.external_account_number}: customer e-mail ${r.status}`);
      continue;
    }
    const n = counts.get(r.message_id ?? '') ?? 0;
    if (n === 0) problems.push(`${r.external_account_number}: e-mail ${r.message_id} recorded SENT but the sink never received it`);
    else delivered++;
    if (n > 1) duplicates += n - 1;
    if (n > 2) problems.push(`${r.external_account_number}: e-mail ${r.message_id} received ${n} times`);
  }
  return `${rows.length} queued, ${sent.length} SENT, ${delivered} delivered, ${duplicates} duplicate(s) (same Message-ID)`;
}

async function main(): Promise<number> {
  const program = new Command('hosts')
    .description('The service on several hosts (network namespaces); faults applied to a host at seeded random moments of a real migration; the invariants and the stall figures checked.')
    .option('--accounts <n>', "accounts in each scenario's book", int(1, 100_000), 150)
    .addOption(
      new Option('--scenarios <list>', `comma-separated, from ${SCENARIOS.join(', ')}, or a named order: ${Object.entries(ORDERS).map(([k, v]) => `${k} (${v.join(' then ')})`).join(', ')}`)
        .argParser((v) =>
          v.split(',').flatMap((s) => {
            if (ORDERS[s]) return ORDERS[s]!;
            if (!SCENARIOS.includes(s as Scenario)) throw new InvalidArgumentError(`unknown scenario ${s}`);
            return [s as Scenario];
          }),
        )
        .default([...SCENARIOS], 'all fourteen'),
    )
    .option('--cut <seconds>', 'how long a worker host stays cut off (leader-cut, worker-pg-cut, worker-temporal-cut, worker-nats-cut)', int(1, 3600), 75)
    .option('--freeze <seconds>', 'how long the worker host stays frozen in worker-freeze', int(1, 3600), 75)
    .option('--api-cut <seconds>', 'how long the API host stays cut off in api-cut', int(1, 3600), 30)
    .option('--pg-cut <seconds>', 'how long the PostgreSQL hosts stay unreachable in pg-cut, and the primary cut off in pg-primary-cut', int(1, 3600), 30)
    .option('--pg-outage <seconds>', 'how long the killed PostgreSQL host stays down in pg-primary-kill and pg-standby-kill', int(1, 3600), 30)
    .option('--nats-outage <seconds>', 'how long the killed NATS node stays down in nats-kill', int(1, 3600), 20)
    .option('--nats-cut <seconds>', 'how long the NATS node stays cut off in nats-cut and nats-partition', int(1, 3600), 60)
    .option('--short', `the short form npm test runs: ${SHORT.scenarios.join(',')}, ${SHORT.accounts} accounts, --cut ${SHORT.cut} --freeze ${SHORT.freeze} (options given too win)`, false)
    .option('--seed <seed>', 'seed of the books and of the fault moments (default: random, printed)')
    .option('--seeds <list>', 'several seeds in one go (comma-separated; or a number N: the seeds <seed>.1 … <seed>.N): the scenarios run once per seed on the same hosts, one after the other', (v) => v.split(',').filter(Boolean))
    .option('--both-orders', 'with --seeds: every other seed runs the scenarios in reverse order (a scenario that leaves hosts restarted is then followed by each of its neighbours)', false)
    .option('--timeout <minutes>', "the migrate client's --timeout of each scenario", int(1, 600), 10)
    .option('--plan', 'print the checks these options would run, the scenarios and the intruder check (`hosts: planned N (...)`), and stop: no root needed (scripts/test.sh counts them)', false)
    .addHelpText('after', '\nRun it through scripts/hosts.sh (npm run test:hosts) as root.\n');
  program.parse();
  const raw = program.opts<Omit<Options, 'seed' | 'seeds'> & { seed?: string; seeds?: string[] }>();
  const seed = raw.seed ?? crypto.randomBytes(4).toString('hex');
  const counted = raw.seeds?.length === 1 && /^\d+$/.test(raw.seeds[0]!) ? Number(raw.seeds[0]) : null;
  if (counted !== null && (counted < 1 || counted > 100)) throw new InvalidArgumentError('--seeds N: N from 1 to 100');
  const seeds = counted !== null ? Array.from({ length: counted }, (_, i) => `${seed}.${i + 1}`) : (raw.seeds ?? null);
  const o: Options = { ...raw, seed, seeds };
  if (o.short) {
    // The short form's values, but where an option was given on the command line.
    const given = (name: string) => program.getOptionValueSource(name) === 'cli';
    if (!given('scenarios')) o.scenarios = SHORT.scenarios;
    if (!given('accounts')) o.accounts = SHORT.accounts;
    if (!given('cut')) o.cut = SHORT.cut;
    if (!given('freeze')) o.freeze = SHORT.freeze;
  }
  const rounds = (o.seeds ?? [o.seed]).map((s, i) => ({ seed: s, scenarios: o.bothOrders && i % 2 === 1 ? [...o.scenarios].reverse() : o.scenarios }));
  if ((raw as { plan?: boolean }).plan) {
    const planned = rounds.flatMap((r) => r.scenarios.map((sc) => (o.seeds ? `${sc}@${r.seed}` : sc)));
    process.stdout.write(`hosts: planned ${planned.length + 1} (${planned.join(', ')}, and the intruder check)\n`);
    return 0;
  }
  let random = rng(o.seed);
  say(o.seeds ? `seeds ${o.seeds.join(', ')}${o.bothOrders ? ' (every other one in reverse order)' : ''}` : `seed ${o.seed} (repeat with --seed ${o.seed})`);

  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    say(`${signal}: removing the hosts`);
    removeAll();
    process.exit(130);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  teardown();
  fs.rmSync(WORK, { recursive: true, force: true });
  fs.mkdirSync(WORK, { recursive: true });
  const results: Result[] = [];
  /** What the intruder check found open (null: not run). */
  let intruderProblems: string[] | null = null;
  let failedLogs: string | null = null;
  try {
    createHosts();
    say('hosts: pg1, pg2, dcs, temporal, nats1-3, worker1-2, api1-2, lb (HAProxy), smtp, intruder on 10.213.7.0/24 (bridge dih-br)');
    const stack = await startStack(WORK, say);
    const env = stack.env;
    const db = createDb(stack.databaseUrl, 4);
    // The checks' own user (an auditor's: reads every event) and Temporal client certificate.
    const nc = await connectNats(stack.checker.nats, 'hosts-checker');
    // The stall figures' own view of the stream: one connection to each server.
    const probes = await Promise.all(stack.checker.nats.servers.map((server) => connectNats({ ...stack.checker.nats, servers: [server] }, 'hosts-probe')));
    const connection = await Connection.connect(stack.checker.temporal);
    const temporal = new Client({ connection });
    try {
      // The stream at 3 replicas (the workers ensure it too): created once the cluster has its
      // JetStream meta leader.
      const streamDeadline = Date.now() + 60_000;
      for (;;) {
        try {
          await ensureStream(nc, { stream: STREAM, subjectPrefix: 'events', duplicateWindowMs: 86_400_000, maxAgeMs: 2_592_000_000, maxBytes: -1, replicas: 3 });
          break;
        } catch (err) {
          if (Date.now() > streamDeadline) throw new Error(`the events stream could not be created on the cluster: ${String(err)}`);
          await sleep(1000);
        }
      }
      const info = await (await jetstreamManager(nc)).streams.info(STREAM);
      say(`stream ${STREAM}: ${info.config.num_replicas} replicas, leader ${info.cluster?.leader}, replicas ${(info.cluster?.replicas ?? []).map((r) => r.name).join(', ')}`);
      // A worker that exited at start (the cluster was not ready) is started again by its supervisor.

      const intrusion = await checkIntruder(stack);
      intrusion.lines.forEach((l) => say(l));
      intruderProblems = intrusion.problems;
      say(`intruder: ${intrusion.problems.length === 0 ? 'every attempt refused' : `${intrusion.problems.length} attempt(s) got in`}`);

      for (const round of rounds) {
      // Each seed its own books and fault moments: a round gives what `--seed <it>` alone gives.
      random = rng(round.seed);
      if (o.seeds) say(`seed ${round.seed}: ${round.scenarios.join(' then ')}`);
      for (const scenario of round.scenarios) {
        const prefix = `H${PREFIX[scenario]}${crypto.randomBytes(2).toString('hex')}-`;
        const book = path.join(WORK, `${scenario}.ndjson`);
        const cliLog = path.join(WORK, 'logs', 'cli.log');
        if ((await runCli(['generate', '--count', String(o.accounts), '--seed', `${round.seed}-${scenario}`, '--prefix', prefix, '--out', book], env, cliLog)) !== 0) throw new Error('generate failed');
        const bookAccounts = new Map<string, unknown>(fs.readFileSync(book, 'utf8').split('\n').filter(Boolean).map((l) => [(JSON.parse(l) as { external_account_number: string }).external_account_number, JSON.parse(l)]));
        const exts = [...bookAccounts.keys()];
        // The commit checker's writer (PostgreSQL scenarios): commits beside the book, through HAProxy.
        const writer = PG_SCENARIOS.has(scenario) ? new CommitWriter(stack.databaseUrl, prefix) : null;
        await writer?.start();
        say(`${scenario}: migrating ${exts.length} accounts through HAProxy${writer ? '; a writer commits a row every 100 ms beside it (the commit checker)' : ''}`);
        const t0 = Date.now();
        let migrating = true;
        const migrate = runCli(
          ['migrate', '--input', book, '--api-url', stack.apiUrl, '--api-key', stack.apiKey, '--concurrency', '8', '--poll-interval', '250', '--timeout', String(o.timeout), '--progress', 'plain', '--report', path.join(WORK, `${scenario}.report`)],
          env,
          path.join(WORK, 'logs', `${scenario}.migrate.log`),
        ).finally(() => (migrating = false));
        const processed = async () =>
          Number((await db('import_processes').where({ status: 'PROCESSED' }).where('external_account_number', 'like', `${prefix}%`).count<{ n: string }[]>('* as n'))[0]!.n);

        const r: Result = { scenario, seed: round.seed, accounts: exts.length, fault: '—', at: null, eventsMs: null, importsMs: null, failoverMs: null, commits: null, openAtFault: 0, migrateSeconds: 0, emails: '', notes: [], problems: [] };
        let finalAtHeal: Map<string, string> | null = null;
        /** Where the stall figures count from (the fault, or the heal): null without a fault. */
        let measuredFrom: number | null = null;
        const drill: { mark: RestoreMark | string | null } = { mark: null };
        let scenarioCheck: (() => Promise<string[]>) | null = null;
        let boundsHold: boolean | null = null;
        const injector = (async () => {
          // The moment: once 10-30 % of the book is PROCESSED, then up to 1.5 s more.
          const target = Math.max(3, Math.floor(exts.length * (0.1 + 0.2 * random())));
          const jitter = random() * 1500;
          while (migrating && (await processed().catch(() => 0)) < target) await sleep(100);
          await sleep(jitter);
          if (!migrating) return;
          const done = await processed();
          const fault = await planFault(scenario, { db, probes, o, random, stack, nc, prefix, drill });
          if (typeof fault === 'string') {
            r.problems.push(fault);
            return;
          }
          scenarioCheck = fault.check ?? null;
          boundsHold = !fault.notAFault;
          const open = await openImports(db, prefix);
          const seq0 = (await lastMessage(probes))?.seq ?? '?';
          const leaderBefore = await leaderIp(db);
          const restartsBefore = new Map(['worker1', 'worker2', 'api1', 'api2'].map((n) => [n, stack.services.get(n)!.restarts]));
          fault.apply();
          // From the moment the fault is in place (iptables rules take a few tens of ms to apply).
          const since = Date.now();
          r.at = since - t0;
          r.fault = fault.label;
          r.openAtFault = open.size;
          say(`${scenario}: ${fault.label} at ${(r.at / 1000).toFixed(1)} s with ${done} of ${exts.length} PROCESSED, ${open.size} open, stream at ${seq0}, relay leader ${leaderBefore ?? 'none'}`);
          // Who leads the relay after the fault, and when.
          const leaderWatch = (async () => {
            for (;;) {
              const now = await leaderIp(db).catch(() => null);
              if (now && now !== leaderBefore) return { ip: now, ms: Date.now() - since };
              if (Date.now() - since > fault.durationMs) return null;
              await sleep(250);
            }
          })();
          // The heal at the end of the fault's time, whatever the measures are doing meanwhile;
          // the imports final at that moment are noted (a zombie must not write to them after it).
          const healed = (async () => {
            await Promise.race([sleep(fault.durationMs - (Date.now() - since)), ...(fault.endsEarly ? [fault.endsEarly()] : [])]);
            if (fault.sessionsGoneBy) {
              // Just before the heal: the sessions the cut host had open at the fault, still on the server.
              const left = await sessionsOpenSince(db, fault.sessionsGoneBy, since).catch((err: unknown) => `could not be read (${String(err)})`);
              const cutS = ((Date.now() - since) / 1000).toFixed(1);
              if (typeof left === 'string') r.problems.push(`the cut host's sessions ${left}`);
              else if (left.length > 0) r.problems.push(`${left.map((x) => `${x.n} ${x.app || '(no name)'}`).join(', ')} session(s) of ${fault.sessionsGoneBy.name} opened before the cut still open on the server ${cutS} s into it (their client is gone: each holds a connection slot)`);
              r.notes.push(`${scenario}: sessions of ${fault.sessionsGoneBy.name} from before the cut still open on the server ${cutS} s into it: ${typeof left === 'string' ? '?' : left.reduce((a, x) => a + x.n, 0)}`);
            }
            await fault.heal();
            // Read again while no primary answers yet (a heal that restarts PostgreSQL).
            for (let i = 0; i < 60 && finalAtHeal === null; i++) {
              finalAtHeal = await finalImports(db, prefix).catch(() => null);
              if (finalAtHeal === null) await sleep(1500);
            }
            say(`${scenario}: healed after ${((Date.now() - since) / 1000).toFixed(1)} s`);
            return Date.now();
          })();
          // Stalls are measured from the fault, or (a fault that stops everyone: PostgreSQL gone)
          // from the heal, with the imports open at the fault.
          const healEnd = fault.measureFromHeal ? await healed : since;
          const from = fault.measureFromHeal ? (fault.healedAt?.() ?? healEnd) : since;
          measuredFrom = from;
          const stalls = await measureStalls({ db, probes, temporal, since: from, open, untilMs: Math.max(fault.measureFromHeal ? 0 : fault.durationMs, BOUND_IMPORTS_MS + 5000) });
          r.eventsMs = stalls.eventsMs;
          r.importsMs = stalls.importsMs;
          r.failoverMs = fault.failover ? await fault.failover() : null;
          if (fault.failover && r.failoverMs === null) r.problems.push('the standby was not promoted within 120 s');
          await healed;
          const newLeader = await leaderWatch;
          const restarts = [...restartsBefore].map(([n, k]) => [n, stack.services.get(n)!.restarts - k] as const).filter(([, k]) => k > 0);
          r.notes.push(
            `${scenario}: ${fault.measureFromHeal ? 'from the heal, ' : ''}events resumed after ${fmt(r.eventsMs)} s; the ${open.size} imports open at the fault all moved on after ${fmt(r.importsMs)} s` +
              (stalls.stillWaiting.length ? ` (still waiting: ${stalls.stillWaiting.slice(0, 5).join(', ')}${stalls.stillWaiting.length > 5 ? ', …' : ''})` : '') +
              `; the last to move: ${stalls.slowest.join(', ') || '—'}; relay leadership ${newLeader ? `passed to ${newLeader.ip} after ${fmt(newLeader.ms)} s` : 'stayed where it was'}` +
              (restarts.length ? `; restarted by the supervisor: ${restarts.map(([n, k]) => `${n} ×${k}`).join(', ')}` : '') +
              ((await fault.after?.()) ?? ''),
          );
          for (const line of stalls.diagnosis) r.notes.push(`${scenario}: waiting 40 s after the fault: ${line}`);
        })();

        const code = await migrate;
        await injector;
        r.migrateSeconds = (Date.now() - t0) / 1000;
        if (r.at === null && r.problems.length === 0) r.problems.push('no fault was injected (the book finished first): use more --accounts');
        const report = JSON.parse(fs.readFileSync(path.join(WORK, `${scenario}.report.json`), 'utf8')) as { accounts: { external_account_number: string; final_status: string }[] };
        await waitForQuiet(db, SUPPLIER, exts, 300_000).catch((err) => r.problems.push(String(err)));
        await waitForClosed(db, temporal, SUPPLIER, exts, 180_000).catch((err) => r.problems.push(String(err)));
        // The stream may be re-electing its leader just after a heal ("JetStream system temporarily
        // unavailable"): the check is tried again a few times before it counts as failed.
        const clientStatus = new Map(report.accounts.map((a) => [a.external_account_number, a.final_status]));
        let check: Awaited<ReturnType<typeof checkBook>> = { accounts: exts.length, problems: [] };
        for (let attempt = 1; ; attempt++) {
          try {
            check = await checkBook({ db, temporal, nc, stream: STREAM, subjectPrefix: 'events', supplier: SUPPLIER, exts, clientStatus, book: bookAccounts });
            break;
          } catch (err) {
            if (attempt >= 6) {
              check.problems.push(`the invariants could not be checked: ${String(err)}`);
              break;
            }
            await sleep(5000);
          }
        }
        if (code !== 0) r.problems.push(`migrate exited with ${code}`);
        r.problems.push(...check.problems);
        r.emails = await checkEmails(db, stack, prefix, r.problems).catch((err) => {
          r.problems.push(`e-mail check failed: ${String(err)}`);
          return '—';
        });
        // No event on the stream after the heal even now, once every invariant held (every event of
        // the book is on the stream): none was left to publish, so there was no stall to measure
        // (pg-both-restart at 60 accounts: the imports the restart finished only moved their rows
        // to `done`, their events were out before the kill; seeds u10.6 and u10.8).
        const nothingLeft = r.eventsMs === null && check.problems.length === 0 && measuredFrom !== null && ((await lastMessage(probes))?.at ?? Infinity) <= measuredFrom;
        if (nothingLeft) r.notes.push(`${scenario}: no event was left to publish after the heal (the stream's last event is older than it, and every event of the book is on the stream): nothing to resume`);
        if (boundsHold === false || nothingLeft) {
          /* no fault, or nothing left to publish: nothing to bound */
        } else if (r.eventsMs === null || r.eventsMs > BOUND_EVENTS_MS) r.problems.push(`events resumed after ${fmt(r.eventsMs)} s: more than the ${BOUND_EVENTS_MS / 1000} s bound`);
        if (boundsHold !== false && (r.importsMs === null || r.importsMs > BOUND_IMPORTS_MS)) r.problems.push(`the imports open at the fault moved on after ${fmt(r.importsMs)} s: more than the ${BOUND_IMPORTS_MS / 1000} s bound`);
        r.notes.push(`${scenario}: e-mails ${r.emails}`);
        // No write to an import another worker had finished by the heal (a zombie's late write).
        const atHeal = finalAtHeal as Map<string, string> | null;
        if (atHeal) {
          const now = await finalImports(db, prefix);
          const changed = [...atHeal].filter(([ext, sig]) => now.get(ext) !== sig).map(([ext, sig]) => `${ext}: ${sig} at the heal, ${now.get(ext) ?? 'gone'} at the end`);
          r.notes.push(`${scenario}: ${atHeal.size} imports final at the heal, ${changed.length} written after it`);
          for (const c of changed.slice(0, 10)) r.problems.push(`written after the heal, when it was final: ${c}`);
        } else if (r.at !== null) r.problems.push('the imports final at the heal could not be read');
        const ownCheck = scenarioCheck as (() => Promise<string[]>) | null;
        if (ownCheck) r.problems.push(...(await ownCheck().catch((err: unknown) => [`the scenario's own check failed: ${String(err)}`])));
        if (writer) {
          await writer.stop();
          const commits = await checkCommits(stack, writer).catch((err: unknown) => ({ acknowledged: writer.acknowledged.length, lost: -1, diverged: true, line: `commit check failed: ${String(err)}`, problems: [`the commit check failed: ${String(err)}`] }));
          r.commits = { acknowledged: commits.acknowledged, lost: commits.lost, diverged: commits.diverged };
          r.notes.push(`${scenario}: ${commits.line}`);
          r.problems.push(...commits.problems);
        }
        if (scenario === 'pg-restore-drill') {
          if (typeof drill.mark === 'string') r.problems.push(`the restore point could not be taken: ${drill.mark}`);
          else if (drill.mark) {
            say(`${scenario}: the book is in; restoring to ${drill.mark.name} on a scratch host`);
            await restoreDrill({ stack, book, exts, mark: drill.mark, supplier: SUPPLIER, work: WORK, say, notes: r.notes, problems: r.problems, runCli }).catch((err: unknown) => r.problems.push(`the restore drill failed: ${err instanceof Error ? err.message : String(err)}`));
          }
        }
        results.push(r);
        r.notes.forEach((n) => say(n));
        say(`${scenario}: ${r.problems.length === 0 ? 'every invariant holds' : `${r.problems.length} problem(s)`}`);
        for (const p of r.problems.slice(0, 20)) say(`  ${p}`);
      }
      }
    } finally {
      await nc.close().catch(() => undefined);
      await Promise.all(probes.map((p) => p.close().catch(() => undefined)));
      await connection.close().catch(() => undefined);
      await db.destroy().catch(() => undefined);
    }
  } catch (err) {
    say(`failed: ${err instanceof Error ? err.stack : String(err)}`);
    results.push({ scenario: rounds.flatMap((r) => r.scenarios)[results.length] ?? 'leader-cut', seed: o.seed, accounts: 0, fault: 'harness failure', at: null, eventsMs: null, importsMs: null, failoverMs: null, commits: null, openAtFault: 0, migrateSeconds: 0, emails: '', notes: [], problems: [String(err)] });
  } finally {
    if (results.some((r) => r.problems.length > 0) || (intruderProblems?.length ?? 0) > 0) {
      failedLogs = path.join(ROOT, 'data', 'hosts', 'last-failure');
      fs.rmSync(failedLogs, { recursive: true, force: true });
      fs.mkdirSync(path.dirname(failedLogs), { recursive: true });
      if (fs.existsSync(path.join(WORK, 'logs'))) fs.cpSync(path.join(WORK, 'logs'), failedLogs, { recursive: true });
    } else if (process.env.HOSTS_KEEP_LOGS === '1' && fs.existsSync(path.join(WORK, 'logs'))) {
      // A green run's logs too, when asked (to read its timings).
      const kept = path.join(ROOT, 'data', 'hosts', 'last-run');
      fs.rmSync(kept, { recursive: true, force: true });
      fs.cpSync(path.join(WORK, 'logs'), kept, { recursive: true });
    }
    removeAll();
    fs.rmSync(WORK, { recursive: true, force: true });
  }

  const lines = [
    '',
    `| ${o.seeds ? 'seed | ' : ''}scenario | accounts | fault | at (s) | open at fault | failover (s) | events resumed (s, ≤ ${BOUND_EVENTS_MS / 1000}) | imports resumed (s, ≤ ${BOUND_IMPORTS_MS / 1000}) | migrate (s) | commits acknowledged / lost / standby diverged | problems |`,
    `| ${o.seeds ? '--- | ' : ''}--- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |`,
    ...results.map((r) => `| ${o.seeds ? `${r.seed} | ` : ''}${r.scenario} | ${r.accounts} | ${r.fault} | ${fmt(r.at)} | ${r.openAtFault} | ${fmt(r.failoverMs)} | ${fmt(r.eventsMs)} | ${fmt(r.importsMs)} | ${r.migrateSeconds.toFixed(1)} | ${r.commits ? `${r.commits.acknowledged} / ${r.commits.lost} / ${r.commits.diverged ? 'yes' : 'no'}` : '—'} | ${r.problems.length} |`),
    '',
    ...results.flatMap((r) => r.notes),
    '',
    o.seeds ? `seeds ${o.seeds.join(', ')}` : `seed ${o.seed}`,
  ];
  if (intruderProblems) lines.splice(lines.length - 2, 0, `intruder (a subnet host without credentials): ${intruderProblems.length === 0 ? 'PostgreSQL, NATS, Temporal, SMTP and the API each refused every attempt' : intruderProblems.join('; ')}`, '');
  // The intruder check counts as one more check beside the scenarios.
  const failed = results.filter((r) => r.problems.length > 0).length + (intruderProblems?.length ? 1 : 0);
  const passed = results.length + (intruderProblems ? 1 : 0) - failed;
  lines.push(`hosts: ${passed} passed, ${failed} failed${failedLogs ? ` (logs in ${path.relative(ROOT, failedLogs)})` : ''}`);
  process.stdout.write(`${lines.join('\n')}\n`);
  return failed === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    say(`failed: ${err instanceof Error ? err.stack : String(err)}`);
    removeAll();
    process.exit(2);
  },
);
