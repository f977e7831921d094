/**
 * The several-hosts harness (issue 24; docs/scaling.md, "The reference deployment"): the real
 * service on hosts of one machine (test/hosts/net.ts, test/hosts/stack.ts) and, for each scenario,
 * a generated book migrated with `data-import migrate` through HAProxy while a fault is applied to
 * one host at a seeded random moment:
 *   leader-cut  the worker host that leads the outbox relay (and runs imports) cut off from
 *               everything — every packet dropped, no reset: a power or link loss — for longer
 *               than every timeout (--cut, default 75 s), then healed
 *   nats-kill   the NATS node that leads the events stream killed (SIGKILL of its processes),
 *               started again after --nats-outage seconds
 *   nats-cut    the NATS node the relay leader publishes through cut off from everything (silent,
 *               no reset) for --nats-cut seconds, then healed
 * After each: the fault suite's invariants (test/faults/invariants.ts: every account PROCESSED
 * with post-import done, one account row, one `complete` and one `post_import.completed` each in
 * the outbox and on the stream under the same id, ImportStatus equal to the row, nothing FAILED at
 * the client), every customer e-mail delivered (the sink's count; a duplicate must carry the same
 * Message-ID), and the two stall figures, each against its bound:
 *   events   from the fault until the stream takes a new event again (bound 30 s)
 *   imports  from the fault until every import open at that moment has moved on (bound 60 s)
 * Started by scripts/hosts.sh (npm run test:hosts), which needs root, installs haproxy/iptables
 * and passes the binaries in HOSTS_* variables. Everything it creates is removed at the end, on a
 * failure and on Ctrl-C.
 */
import { ChildProcess, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { Client, Connection } from '@temporalio/client';
import { jetstreamManager } from '@nats-io/jetstream';
import type { Knex } from 'knex';
import { createDb } from '../../db/knex';
import { connectNats, ensureStream, type NatsConnection } from '../../events/nats';
import { checkBook, waitForClosed, waitForQuiet } from '../faults/invariants';
import { createHosts, cutLink, heal, host, Host, HostName, killAll, teardown } from './net';
import { DIST, PORTS, ROOT, sleep, Stack, startStack } from './stack';

type Scenario = 'leader-cut' | 'nats-kill' | 'nats-cut';
const SCENARIOS: Scenario[] = ['leader-cut', 'nats-kill', 'nats-cut'];
const SUPPLIER = 'DEMO_ENERGY';
const STREAM = 'EVENTS';
/** The relay's advisory lock key (events/relay.ts LEADER_LOCK_KEY). */
const LEADER_LOCK_KEY = 0x0da7a1;
const BOUND_EVENTS_MS = 30_000;
const BOUND_IMPORTS_MS = 60_000;
const WORK = '/tmp/dih-run';

interface Options {
  accounts: number;
  scenarios: Scenario[];
  cut: number;
  natsOutage: number;
  natsCut: number;
  seed: string;
  timeout: number;
}

interface Result {
  scenario: Scenario;
  accounts: number;
  fault: string;
  at: number | null;
  eventsMs: number | null;
  importsMs: number | null;
  openAtFault: number;
  migrateSeconds: number;
  emails: string;
  notes: string[];
  problems: string[];
}

const say = (line: string) => process.stderr.write(`[hosts] ${line}\n`);

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
  for (const c of cliChildren) c.kill('SIGKILL');
  teardown();
}

const fmt = (ms: number | null) => (ms === null ? '—' : (ms / 1000).toFixed(1));

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
async function measureStalls(o: { db: Knex; probes: NatsConnection[]; since: number; open: Map<string, string>; untilMs: number }) {
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
    }
    await sleep(200);
  }
  const slowest = moved
    .slice(-3)
    .reverse()
    .map((m) => `${m.ext} (${m.from}) ${fmt(m.ms)} s`);
  return { eventsMs, importsMs, stillWaiting: [...waiting.keys()], slowest };
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
  const received = (await (await fetch(stack.smtpMessagesUrl, { signal: AbortSignal.timeout(10_000) })).json()) as { messageId: string }[];
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
    .option('--scenarios <list>', `comma-separated, from ${SCENARIOS.join(',')}`, (v) => v.split(',').map((s) => {
      if (!SCENARIOS.includes(s as Scenario)) throw new InvalidArgumentError(`unknown scenario ${s}`);
      return s as Scenario;
    }), SCENARIOS)
    .option('--cut <seconds>', 'how long the leader host stays cut off in leader-cut', int(1, 3600), 75)
    .option('--nats-outage <seconds>', 'how long the killed NATS node stays down in nats-kill', int(1, 3600), 20)
    .option('--nats-cut <seconds>', 'how long the NATS node stays cut off in nats-cut', int(1, 3600), 60)
    .option('--seed <seed>', 'seed of the books and of the fault moments (default: random, printed)')
    .option('--timeout <minutes>', "the migrate client's --timeout of each scenario", int(1, 600), 10)
    .addHelpText('after', '\nRun it through scripts/hosts.sh (npm run test:hosts) as root.\n');
  program.parse();
  const raw = program.opts<Omit<Options, 'seed'> & { seed?: string }>();
  const o: Options = { ...raw, seed: raw.seed ?? crypto.randomBytes(4).toString('hex') };
  const random = rng(o.seed);
  say(`seed ${o.seed} (repeat with --seed ${o.seed})`);

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
  let failedLogs: string | null = null;
  try {
    createHosts();
    say('hosts: pg, temporal, nats1-3, worker1-2, api1-2, lb (HAProxy), smtp on 10.213.7.0/24 (bridge dih-br)');
    const stack = await startStack(WORK, say);
    const env = stack.env;
    const db = createDb(stack.databaseUrl, 4);
    const nc = await connectNats(stack.natsUrl, 'hosts-checker');
    // The stall figures' own view of the stream: one connection to each server.
    const probes = await Promise.all(stack.natsUrl.split(',').map((u) => connectNats(u, 'hosts-probe')));
    const connection = await Connection.connect({ address: stack.temporalAddress });
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
      // Workers that exited at start (the cluster was not ready) are started again.
      for (const name of ['worker1', 'worker2']) if (!stack.services.get(name)!.running) stack.restart(name);

      for (const scenario of o.scenarios) {
        const prefix = `H${{ 'leader-cut': 'LC', 'nats-kill': 'NK', 'nats-cut': 'NC' }[scenario]}${crypto.randomBytes(2).toString('hex')}-`;
        const book = path.join(WORK, `${scenario}.ndjson`);
        const cliLog = path.join(WORK, 'logs', 'cli.log');
        if ((await runCli(['generate', '--count', String(o.accounts), '--seed', `${o.seed}-${scenario}`, '--prefix', prefix, '--out', book], env, cliLog)) !== 0) throw new Error('generate failed');
        const exts = fs.readFileSync(book, 'utf8').split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { external_account_number: string }).external_account_number);
        say(`${scenario}: migrating ${exts.length} accounts through HAProxy`);
        const t0 = Date.now();
        let migrating = true;
        const migrate = runCli(
          ['migrate', '--input', book, '--api-url', stack.apiUrl, '--api-key', stack.apiKey, '--concurrency', '8', '--poll-interval', '250', '--timeout', String(o.timeout), '--progress', 'plain', '--report', path.join(WORK, `${scenario}.report`)],
          env,
          path.join(WORK, 'logs', `${scenario}.migrate.log`),
        ).finally(() => (migrating = false));
        const processed = async () =>
          Number((await db('import_processes').where({ status: 'PROCESSED' }).where('external_account_number', 'like', `${prefix}%`).count<{ n: string }[]>('* as n'))[0]!.n);

        const r: Result = { scenario, accounts: exts.length, fault: '—', at: null, eventsMs: null, importsMs: null, openAtFault: 0, migrateSeconds: 0, emails: '', notes: [], problems: [] };
        const injector = (async () => {
          // The moment: once 10-30 % of the book is PROCESSED, then up to 1.5 s more.
          const target = Math.max(3, Math.floor(exts.length * (0.1 + 0.2 * random())));
          const jitter = random() * 1500;
          while (migrating && (await processed().catch(() => 0)) < target) await sleep(100);
          await sleep(jitter);
          if (!migrating) return;
          const done = await processed();
          if (scenario === 'leader-cut') {
            const ip = await leaderIp(db);
            const victim: Host | undefined = (['worker1', 'worker2'] as HostName[]).map(host).find((h) => h.ip === ip);
            if (!victim) {
              r.problems.push(`no worker host holds the relay's leader lock (holder ${ip ?? 'none'})`);
              return;
            }
            const open = await openImports(db, prefix);
            const seq0 = (await lastMessage(probes))?.seq ?? '?';
            cutLink(victim);
            // From the moment the cut is in place (the rules take a few tens of ms to apply).
            const since = Date.now();
            r.at = since - t0;
            r.fault = `${victim.name} (relay leader) cut off from everything for ${o.cut} s`;
            r.openAtFault = open.size;
            say(`${scenario}: ${victim.name} (${victim.ip}), the relay leader, cut off at ${(r.at / 1000).toFixed(1)} s with ${done} of ${exts.length} PROCESSED, ${open.size} open, stream at ${seq0}`);
            // Who leads after it, and when.
            const leaderWatch = (async () => {
              for (;;) {
                const now = await leaderIp(db).catch(() => null);
                if (now && now !== victim.ip) return { ip: now, ms: Date.now() - since };
                if (Date.now() - since > o.cut * 1000) return null;
                await sleep(200);
              }
            })();
            const stalls = await measureStalls({ db, probes, since, open, untilMs: o.cut * 1000 });
            const newLeader = await leaderWatch;
            r.eventsMs = stalls.eventsMs;
            r.importsMs = stalls.importsMs;
            r.notes.push(
              `${scenario}: relay leadership passed to ${newLeader ? `${newLeader.ip} after ${fmt(newLeader.ms)} s` : 'nobody during the cut'}; ` +
                `events resumed after ${fmt(r.eventsMs)} s; the ${open.size} imports open at the cut all moved on after ${fmt(r.importsMs)} s` +
                (stalls.stillWaiting.length ? ` (still waiting at the heal: ${stalls.stillWaiting.slice(0, 5).join(', ')}${stalls.stillWaiting.length > 5 ? ', …' : ''})` : '') +
                `; the last to move: ${stalls.slowest.join(', ') || '—'}`,
            );
            const rest = o.cut * 1000 - (Date.now() - since);
            if (rest > 0) await sleep(rest);
            heal(victim);
            say(`${scenario}: ${victim.name} healed after ${((Date.now() - since) / 1000).toFixed(1)} s`);
          } else if (scenario === 'nats-cut') {
            // The node the relay leader's worker is connected to (its /connz lists the worker's address).
            const relayIp = await leaderIp(db);
            let victim: Host | undefined;
            for (const n of ['nats1', 'nats2', 'nats3'] as HostName[]) {
              const h = host(n);
              const connz = (await fetch(`http://${h.ip}:${PORTS.natsMonitor}/connz`, { signal: AbortSignal.timeout(2000) }).then((x) => x.json(), () => null)) as { connections?: { ip: string }[] } | null;
              if (connz?.connections?.some((c) => c.ip === relayIp)) victim = h;
            }
            if (!victim) {
              r.problems.push(`no NATS node has a connection of the relay leader (${relayIp ?? 'none'})`);
              return;
            }
            const open = await openImports(db, prefix);
            const seq0 = (await lastMessage(probes))?.seq ?? '?';
            cutLink(victim);
            const since = Date.now();
            r.at = since - t0;
            r.fault = `${victim.name} (the relay leader's server) cut off from everything for ${o.natsCut} s`;
            r.openAtFault = open.size;
            say(`${scenario}: ${victim.name}, the server of the relay leader ${relayIp}, cut off at ${(r.at / 1000).toFixed(1)} s with ${done} of ${exts.length} PROCESSED, ${open.size} open, stream at ${seq0}`);
            const stalls = await measureStalls({ db, probes, since, open, untilMs: o.natsCut * 1000 });
            r.eventsMs = stalls.eventsMs;
            r.importsMs = stalls.importsMs;
            const rest = o.natsCut * 1000 - (Date.now() - since);
            if (rest > 0) await sleep(rest);
            heal(victim);
            r.notes.push(
              `${scenario}: stream leader ${(await streamLeader(probes)) ?? '?'} during the cut; events resumed after ${fmt(r.eventsMs)} s; the ${open.size} imports open at the cut all moved on after ${fmt(r.importsMs)} s ` +
                `(the last to move: ${stalls.slowest.join(', ') || '—'}); ${victim.name} healed after ${o.natsCut} s`,
            );
          } else {
            const leader = await streamLeader(probes);
            const victim = host((['nats1', 'nats2', 'nats3'].includes(leader ?? '') ? leader : 'nats1') as HostName);
            const open = await openImports(db, prefix);
            const seq0 = (await lastMessage(probes))?.seq ?? '?';
            killAll(victim);
            const since = Date.now();
            r.at = since - t0;
            r.fault = `${victim.name} (stream leader) killed, down ${o.natsOutage} s`;
            r.openAtFault = open.size;
            say(`${scenario}: ${victim.name}, the stream's leader, killed at ${(r.at / 1000).toFixed(1)} s with ${done} of ${exts.length} PROCESSED, ${open.size} open, stream at ${seq0}`);
            const stalls = await measureStalls({ db, probes, since, open, untilMs: Math.max(o.natsOutage * 1000, BOUND_IMPORTS_MS + 5000) });
            r.eventsMs = stalls.eventsMs;
            r.importsMs = stalls.importsMs;
            const rest = o.natsOutage * 1000 - (Date.now() - since);
            if (rest > 0) await sleep(rest);
            await stack.services.get(victim.name)!.exited();
            stack.restart(victim.name);
            const back = Date.now();
            let rejoined: number | null = null;
            for (;;) {
              const i = await (await jetstreamManager(nc, { timeout: 2000 })).streams.info(STREAM).catch(() => null);
              const replica = i?.cluster?.replicas?.find((x) => x.name === victim.name);
              if (i?.cluster?.leader === victim.name || (replica && replica.current)) {
                rejoined = Date.now() - back;
                break;
              }
              if (Date.now() - back > 60_000) break;
              await sleep(250);
            }
            r.notes.push(
              `${scenario}: new stream leader ${(await streamLeader(probes)) ?? '?'}; events resumed after ${fmt(r.eventsMs)} s; the ${open.size} imports open at the kill all moved on after ${fmt(r.importsMs)} s ` +
                `(the last to move: ${stalls.slowest.join(', ') || '—'}); ` +
                `${victim.name} restarted after ${o.natsOutage} s, its replica current again ${fmt(rejoined)} s later`,
            );
            if (rejoined === null) r.problems.push(`${victim.name}'s replica of ${STREAM} was not current within 60 s of its restart`);
          }
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
            check = await checkBook({ db, temporal, nc, stream: STREAM, subjectPrefix: 'events', supplier: SUPPLIER, exts, clientStatus });
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
        if (r.eventsMs === null || r.eventsMs > BOUND_EVENTS_MS) r.problems.push(`events resumed after ${fmt(r.eventsMs)} s: more than the ${BOUND_EVENTS_MS / 1000} s bound`);
        if (r.importsMs === null || r.importsMs > BOUND_IMPORTS_MS) r.problems.push(`the imports open at the fault moved on after ${fmt(r.importsMs)} s: more than the ${BOUND_IMPORTS_MS / 1000} s bound`);
        r.notes.push(`${scenario}: e-mails ${r.emails}`);
        results.push(r);
        r.notes.forEach((n) => say(n));
        say(`${scenario}: ${r.problems.length === 0 ? 'every invariant holds' : `${r.problems.length} problem(s)`}`);
        for (const p of r.problems.slice(0, 20)) say(`  ${p}`);
      }
    } finally {
      await nc.close().catch(() => undefined);
      await Promise.all(probes.map((p) => p.close().catch(() => undefined)));
      await connection.close().catch(() => undefined);
      await db.destroy().catch(() => undefined);
    }
  } catch (err) {
    say(`failed: ${err instanceof Error ? err.stack : String(err)}`);
    results.push({ scenario: o.scenarios[results.length] ?? 'leader-cut', accounts: 0, fault: 'harness failure', at: null, eventsMs: null, importsMs: null, openAtFault: 0, migrateSeconds: 0, emails: '', notes: [], problems: [String(err)] });
  } finally {
    if (results.some((r) => r.problems.length > 0)) {
      failedLogs = path.join(ROOT, 'data', 'hosts', 'last-failure');
      fs.rmSync(failedLogs, { recursive: true, force: true });
      fs.mkdirSync(path.dirname(failedLogs), { recursive: true });
      if (fs.existsSync(path.join(WORK, 'logs'))) fs.cpSync(path.join(WORK, 'logs'), failedLogs, { recursive: true });
    }
    removeAll();
    fs.rmSync(WORK, { recursive: true, force: true });
  }

  const lines = [
    '',
    `| scenario | accounts | fault | at (s) | open at fault | events resumed (s, ≤ ${BOUND_EVENTS_MS / 1000}) | imports resumed (s, ≤ ${BOUND_IMPORTS_MS / 1000}) | migrate (s) | problems |`,
    '| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...results.map((r) => `| ${r.scenario} | ${r.accounts} | ${r.fault} | ${fmt(r.at)} | ${r.openAtFault} | ${fmt(r.eventsMs)} | ${fmt(r.importsMs)} | ${r.migrateSeconds.toFixed(1)} | ${r.problems.length} |`),
    '',
    ...results.flatMap((r) => r.notes),
    '',
    `seed ${o.seed}`,
  ];
  const failed = results.filter((r) => r.problems.length > 0);
  lines.push(`hosts: ${results.length - failed.length} passed, ${failed.length} failed${failedLogs ? ` (logs in ${path.relative(ROOT, failedLogs)})` : ''}`);
  process.stdout.write(`${lines.join('\n')}\n`);
  return failed.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    say(`failed: ${err instanceof Error ? err.stack : String(err)}`);
    removeAll();
    process.exit(2);
  },
);
