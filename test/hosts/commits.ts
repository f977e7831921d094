/**
 * The commit checker (issue 48): proof that no commit the primary acknowledged is lost, independent
 * of the service's own invariants. During a PostgreSQL scenario a writer commits small rows into a
 * table of its own through the runner's HAProxy (as the service connects: the same configuration,
 * whichever node Patroni names the primary), each in its own transaction, and records a row only
 * once its COMMIT returned. After the scenario, on each PostgreSQL host directly (its own socket,
 * as the superuser):
 *   lost       a recorded row missing on the primary, or on the standby once it has replayed up to
 *              the primary's WAL position (bounded wait)
 *   diverged   the standby holds a history the primary never had: a row of the writer the primary
 *              does not have, a timeline history file whose content differs from the primary's
 *              file of the same timeline (two nodes that each chose "timeline 3" from a different
 *              switch point), a timeline the primary's history does not know, or no standby at all
 * Either fails the scenario. The rows are told apart by the writer's own key (the run's tag and a
 * counter), not by a sequence: a node that lost commits hands out the same sequence values again.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import { host, type Host } from './net';
import { httpsStatus, PG_NODES, PORTS, sleep, type Stack } from './stack';

const TABLE = 'hosts_commit_check';

export interface CommitCheck {
  acknowledged: number;
  lost: number;
  diverged: boolean;
  line: string;
  problems: string[];
}

/** A writer: one row per transaction, every ~intervalMs, recorded once its COMMIT returned. */
export class CommitWriter {
  /** The counters whose COMMIT returned without error. */
  readonly acknowledged: number[] = [];
  /** Transactions whose outcome the writer does not know (the connection broke during COMMIT). */
  ambiguous = 0;
  failures = 0;
  private stopping = false;
  private client: pg.Client | null = null;
  private loop: Promise<void> | null = null;
  private n = 0;

  constructor(
    private readonly url: string,
    readonly tag: string,
    private readonly intervalMs = 100,
  ) {}

  /** Creates the table (once per run) and starts writing. */
  async start(): Promise<void> {
    const c = new pg.Client({ connectionString: this.url });
    await c.connect();
    try {
      await c.query(`CREATE TABLE IF NOT EXISTS ${TABLE} (tag text NOT NULL, n integer NOT NULL, served_by inet, at timestamptz NOT NULL DEFAULT clock_timestamp(), PRIMARY KEY (tag, n))`);
    } finally {
      await c.end().catch(() => undefined);
    }
    this.loop = this.run();
  }

  private async connect(): Promise<pg.Client> {
    const c = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 5000, keepAlive: true });
    c.on('error', () => undefined);
    await c.connect();
    return c;
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      try {
        this.client ??= await this.connect();
        const n = ++this.n;
        await this.client.query('BEGIN');
        await this.client.query(`INSERT INTO ${TABLE} (tag, n, served_by) VALUES ($1, $2, inet_server_addr())`, [this.tag, n]);
        let committed = false;
        try {
          await this.client.query('COMMIT');
          committed = true;
        } catch (err) {
          this.ambiguous++;
          throw err;
        }
        if (committed) this.acknowledged.push(n);
      } catch {
        this.failures++;
        const c = this.client;
        this.client = null;
        await c?.end().catch(() => undefined);
        await sleep(250);
        continue;
      }
      await sleep(this.intervalMs);
    }
  }

  /** Stops writing (a transaction in flight for more than 20 s is abandoned, not recorded). */
  async stop(): Promise<void> {
    this.stopping = true;
    const done = await Promise.race([this.loop?.then(() => true) ?? Promise.resolve(true), sleep(20_000).then(() => false)]);
    if (!done) {
      const c = this.client;
      this.client = null;
      await c?.end().catch(() => undefined);
    }
    await this.client?.end().catch(() => undefined);
    this.client = null;
  }
}

/** Runs SQL as the superuser on a PostgreSQL host's own socket; its rows, tab-separated. */
function sqlOn(stack: Stack, h: Host, sql: string): string[][] {
  const r = spawnSync('setpriv', [`--reuid=${stack.pgUser}`, `--regid=${stack.pgUser}`, '--init-groups', 'psql', '-h', path.join(stack.work, h.name), '-p', String(PORTS.pg), '-U', 'postgres', '-d', 'data_import_hosts', '-v', 'ON_ERROR_STOP=1', '-AtF', '\t', '-c', sql], { encoding: 'utf8', timeout: 30_000 });
  if (r.status !== 0) throw new Error(`psql on ${h.name}: ${(r.stderr || r.error?.message || '').trim().slice(0, 200)}`);
  return r.stdout.split('\n').filter((l) => l.length > 0).map((l) => l.split('\t'));
}

interface NodeState {
  recovery: boolean;
  /** The timeline it writes (a primary) or replays (a standby). */
  timeline: number;
  /** pg_current_wal_lsn() on a primary, pg_last_wal_replay_lsn() on a standby. */
  lsn: string;
  /** Its timeline history files, by timeline. */
  histories: Map<number, string>;
  receiver: string;
}

function nodeState(stack: Stack, h: Host): NodeState {
  const [row] = sqlOn(
    stack,
    h,
    `SELECT pg_is_in_recovery(),
            CASE WHEN pg_is_in_recovery() THEN coalesce((SELECT received_tli FROM pg_stat_wal_receiver), (pg_control_checkpoint()).timeline_id) ELSE (pg_control_checkpoint()).timeline_id END,
            CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_lsn() END,
            coalesce((SELECT status || ' from ' || coalesce(sender_host, '?') FROM pg_stat_wal_receiver), 'no WAL receiver')`,
  );
  const histories = new Map<number, string>();
  for (const [name] of sqlOn(stack, h, `SELECT name FROM pg_ls_waldir() WHERE name LIKE '%.history' ORDER BY name`)) {
    const tli = parseInt(name!.slice(0, 8), 16);
    const [[text] = ['']] = sqlOn(stack, h, `SELECT replace(pg_read_file('pg_wal/${name}'), E'\\n', '|')`);
    histories.set(tli, text ?? '');
  }
  // A primary promoted on a new timeline: its checkpoint's timeline may still be the old one until
  // its first checkpoint; the highest history file it has names the timeline it writes.
  const timeline = Math.max(Number(row![1]), ...(row![0] === 't' ? [] : [...histories.keys()]));
  return { recovery: row![0] === 't', timeline, lsn: row![2] ?? '', histories, receiver: row![3] ?? '' };
}

function rowsOn(stack: Stack, h: Host, tag: string): Set<number> {
  return new Set(sqlOn(stack, h, `SELECT n FROM ${TABLE} WHERE tag = '${tag.replace(/'/g, "''")}'`).map(([n]) => Number(n)));
}

/** The checks after a scenario (see the file's comment); waits up to 120 s for a primary and a standby caught up. */
export async function checkCommits(stack: Stack, writer: CommitWriter): Promise<CommitCheck> {
  const problems: string[] = [];
  const recorded = new Set(writer.acknowledged);
  const deadline = Date.now() + 120_000;
  let primary: Host | null = null;
  let standby: Host | null = null;
  let p: NodeState | null = null;
  let s: NodeState | null = null;
  let lastError = '';
  for (;;) {
    primary = null;
    for (const h of PG_NODES.map(host)) if ((await httpsStatus(`https://${h.ip}:${PORTS.patroni}/primary`, stack.pki.ca)) === 200) primary = h;
    standby = primary ? host(PG_NODES.find((n) => n !== primary!.name)!) : null;
    try {
      if (primary && standby) {
        p = nodeState(stack, primary);
        s = nodeState(stack, standby);
        // Caught up: the standby replayed up to where the primary was a moment ago.
        const [[behind] = ['']] = sqlOn(stack, standby, `SELECT pg_wal_lsn_diff('${p.lsn}', pg_last_wal_replay_lsn()) > 0`);
        if (!p.recovery && s.recovery && behind === 'f') break;
      }
    } catch (err) {
      lastError = String(err);
    }
    if (Date.now() > deadline) break;
    await sleep(1000);
  }
  if (!primary || !p || p.recovery) {
    problems.push(`commit check: no primary to check against within 120 s${lastError ? ` (${lastError})` : ''}`);
    return { acknowledged: recorded.size, lost: recorded.size, diverged: true, line: `commits acknowledged ${recorded.size}, lost ? (no primary), standby diverged ?`, problems };
  }
  const onPrimary = rowsOn(stack, primary, writer.tag);
  const lostPrimary = [...recorded].filter((n) => !onPrimary.has(n));
  let lostStandby: number[] = [];
  const divergence: string[] = [];
  if (!standby || !s) divergence.push('no standby could be read');
  else {
    if (!s.recovery) divergence.push(`${standby.name} is not in recovery (two primaries)`);
    const onStandby = rowsOn(stack, standby, writer.tag);
    lostStandby = [...recorded].filter((n) => !onStandby.has(n));
    const extra = [...onStandby].filter((n) => !onPrimary.has(n));
    if (extra.length > 0) divergence.push(`${extra.length} row(s) of the writer on ${standby.name} the primary ${primary.name} never had (n ${extra.slice(0, 5).join(', ')}${extra.length > 5 ? ', …' : ''})`);
    for (const [tli, text] of s.histories) {
      const theirs = p.histories.get(tli);
      if (theirs !== undefined && theirs !== text) divergence.push(`timeline ${tli}'s history differs: ${standby.name} "${text}", ${primary.name} "${theirs}"`);
    }
    if (s.timeline > p.timeline) divergence.push(`${standby.name} on timeline ${s.timeline}, beyond the primary's ${p.timeline}`);
    else if (s.timeline < p.timeline && s.recovery) {
      // The standby still on an older timeline: it must not have replayed past the primary's switch
      // point from it (the first line of the primary's history naming that timeline).
      const line = (p.histories.get(p.timeline) ?? '').split('|').map((l) => l.trim().split(/\s+/)).find((f) => Number(f[0]) === s!.timeline);
      if (line?.[1]) {
        const [[past] = ['']] = sqlOn(stack, standby, `SELECT pg_wal_lsn_diff(pg_last_wal_replay_lsn(), '${line[1]}') > 0`);
        if (past === 't') divergence.push(`${standby.name} replayed timeline ${s.timeline} beyond ${line[1]}, where ${primary.name}'s history left it`);
      }
    }
    if (lostStandby.length > 0 && !/^streaming/.test(s.receiver)) divergence.push(`${standby.name}'s WAL receiver: ${s.receiver}`);
  }
  const lost = new Set([...lostPrimary, ...lostStandby]).size;
  const diverged = divergence.length > 0;
  if (lostPrimary.length > 0) problems.push(`commit check: ${lostPrimary.length} acknowledged commit(s) missing on the primary ${primary.name} (n ${lostPrimary.slice(0, 8).join(', ')}${lostPrimary.length > 8 ? ', …' : ''})`);
  if (lostStandby.length > 0) problems.push(`commit check: ${lostStandby.length} acknowledged commit(s) missing on the standby ${standby?.name ?? '?'} (n ${lostStandby.slice(0, 8).join(', ')}${lostStandby.length > 8 ? ', …' : ''})`);
  for (const d of divergence) problems.push(`commit check: standby diverged: ${d}`);
  const line = `commits acknowledged ${recorded.size}, lost ${lost}, standby diverged ${diverged ? 'yes' : 'no'} (primary ${primary.name} timeline ${p.timeline}, standby ${standby?.name ?? '?'} timeline ${s?.timeline ?? '?'} ${s?.receiver ?? ''}; ${writer.ambiguous} commit(s) of unknown outcome, ${writer.failures} failed attempt(s))`;
  return { acknowledged: recorded.size, lost, diverged, line, problems };
}
