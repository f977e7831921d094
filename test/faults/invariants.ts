/**
 * What must be true of a book after a migration through faults (issue "Nothing gets stuck"): every
 * account PROCESSED with its post-import done, one account row each, one `complete` and one
 * `post_import.completed` event each in the outbox and on the stream under the same id, every
 * workflow's ImportStatus equal to its row's status, nothing FAILED at the client, and (given the
 * book) every account as stored equal to its book account, with the digest of its rows stored.
 */
import type { Knex } from 'knex';
import type { Client } from '@temporalio/client';
import { temporal as proto } from '@temporalio/proto';
import { optionalTsToMs } from '@temporalio/common/lib/time';
import type { NatsConnection } from '../../events/nats';
import { readStream } from '../support/stream';
import { accountDigest } from '../../account/canonical';
import { loadAccountsByExternal } from '../../db/stores/accountStore';

export interface BookCheck {
  accounts: number;
  problems: string[];
}

const { VersioningBehavior } = proto.api.enums.v1;

const COMPLETE = 'data_import.import_process.complete';
const POST_IMPORT = 'data_import.import_process.post_import.completed';

/** Groups a list by key, counting. */
function countBy<T>(items: T[], key: (t: T) => string): Map<string, number> {
  const m = new Map<string, number>();
  for (const i of items) m.set(key(i), (m.get(key(i)) ?? 0) + 1);
  return m;
}

/** Waits until every import of the book is final and every outbox row published (the relay caught up). */
export async function waitForQuiet(db: Knex, supplier: string, exts: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await db('import_processes')
      .where({ import_supplier: supplier })
      .whereIn('external_account_number', exts)
      .where((q) => q.whereIn('status', ['PENDING', 'IN_PROGRESS']).orWhere((q2) => q2.where({ status: 'PROCESSED' }).whereNotIn('current_step', ['done', 'post_import_failed'])))
      .count<{ n: string }[]>('* as n');
    const unpublished = await db('outbox_pending').count<{ n: string }[]>('* as n');
    if (Number(open[0]!.n) === 0 && Number(unpublished[0]!.n) === 0) return;
    if (Date.now() > deadline) throw new Error(`not quiet after ${timeoutMs} ms: ${open[0]!.n} imports open, ${unpublished[0]!.n} events unpublished`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * Waits until the latest execution of every import of the book has closed. The database can be
 * final before Temporal is: a worker killed after a run's last step committed and before its
 * workflow task completed leaves the execution open until the task times out and another worker
 * replays it (the steps then find their work done). The invariants are about how things end, so
 * they are checked once the executions had that time; one still open at the deadline is reported
 * by checkBook.
 */
export async function waitForClosed(db: Knex, temporal: Client, supplier: string, exts: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let open: string[] = await db('import_processes').where({ import_supplier: supplier }).whereIn('external_account_number', exts).pluck('workflow_id');
  for (;;) {
    const still: string[] = [];
    for (const id of open) {
      const d = await temporal.workflow.getHandle(id).describe().catch(() => null);
      if (d?.status.name === 'RUNNING') still.push(id);
    }
    open = still;
    if (open.length === 0) return;
    if (Date.now() > deadline) throw new Error(`executions still open after ${timeoutMs} ms: ${open.slice(0, 5).join(', ')}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

export async function checkBook(o: {
  db: Knex;
  temporal: Client;
  nc: NatsConnection;
  stream: string;
  subjectPrefix: string;
  supplier: string;
  exts: string[];
  /** final_status per account from the migrate client's report */
  clientStatus: Map<string, string>;
  /**
   * The book's accounts by external account number: each account as stored (read back from its
   * tables) must digest to its book account's digest, and carry the digest of its rows stored by
   * the workers' digest filler (db/stores/accountDigests.ts): the book arrived intact, and
   * what the reconciliation answers from is true, whatever was killed.
   */
  book?: Map<string, unknown>;
}): Promise<BookCheck> {
  const { db, exts } = o;
  const problems: string[] = [];
  const note = (p: string) => {
    if (problems.length < 50) problems.push(p);
  };

  const rows = await db('import_processes')
    .select('external_account_number', 'status', 'current_step', 'run', 'kraken_identifier', 'workflow_id')
    .where({ import_supplier: o.supplier })
    .whereIn('external_account_number', exts);
  const byExt = new Map(rows.map((r) => [r.external_account_number as string, r]));

  const accounts = countBy(
    await db('accounts').select('external_account_number').where({ import_supplier: o.supplier }).whereIn('external_account_number', exts),
    (a) => a.external_account_number,
  );
  const outbox = await db('outbox')
    .select('event_type', 'event_id', db.raw(`coalesce(envelope->'data'->>'external_identifier', envelope->'data'->>'import_process_external_identifier') AS ext`))
    .whereIn('event_type', [COMPLETE, POST_IMPORT]);
  const outboxOf = (type: string) => outbox.filter((e) => e.event_type === type);

  const onStream = [
    ...(await readStream(o.nc, o.stream, `${o.subjectPrefix}.${COMPLETE}.v1`)),
    ...(await readStream(o.nc, o.stream, `${o.subjectPrefix}.${POST_IMPORT}.v1`)),
  ];
  const streamExt = (e: (typeof onStream)[number]) => {
    const d = e.envelope.data as { external_identifier?: string; import_process_external_identifier?: string };
    return d.external_identifier ?? d.import_process_external_identifier ?? '';
  };

  for (const ext of exts) {
    const row = byExt.get(ext);
    if (!row) {
      note(`${ext}: no import process`);
      continue;
    }
    if (row.status !== 'PROCESSED') note(`${ext}: status ${row.status}`);
    if (row.current_step !== 'done') note(`${ext}: post-import step ${row.current_step}`);
    if ((accounts.get(ext) ?? 0) !== 1) note(`${ext}: ${accounts.get(ext) ?? 0} account rows`);
    for (const type of [COMPLETE, POST_IMPORT]) {
      const mine = outboxOf(type).filter((e) => e.ext === ext);
      if (mine.length !== 1) note(`${ext}: ${mine.length} ${type} events in the outbox`);
      const streamed = onStream.filter((e) => e.envelope.type === type && streamExt(e) === ext);
      if (streamed.length !== 1) note(`${ext}: ${streamed.length} ${type} messages on the stream`);
      else if (mine.length === 1 && streamed[0]!.envelope.id !== mine[0].event_id) note(`${ext}: ${type} on the stream under another id`);
    }
    const client = o.clientStatus.get(ext);
    if (client !== 'PROCESSED') note(`${ext}: the migrate client reports ${client ?? 'nothing'}`);
  }

  if (o.book) {
    // The workers' digest filler stores the digests the creates queued, off the imports' path:
    // given a minute to catch up (it runs every second).
    const queued = async () =>
      Number(((await db('account_digest_pending').join('accounts', 'accounts.id', 'account_digest_pending.account_id').where('accounts.import_supplier', o.supplier).whereIn('accounts.external_account_number', exts).count({ n: '*' })) as { n: string }[])[0]!.n);
    for (const deadline = Date.now() + 60_000; (await queued()) > 0 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 500));
    const stored = new Map<string, string | null>(
      (await db('accounts').select('external_account_number', 'stored_digest').where({ import_supplier: o.supplier }).whereIn('external_account_number', exts)).map((a) => [a.external_account_number as string, a.stored_digest as string | null]),
    );
    for (let i = 0; i < exts.length; i += 500) {
      const chunk = exts.slice(i, i + 500);
      const accounts = await loadAccountsByExternal(db, o.supplier, chunk);
      for (const ext of chunk) {
        const account = accounts.get(ext);
        if (!account) continue; // the account rows are counted above
        const fresh = accountDigest(account);
        if (o.book.has(ext) && fresh !== accountDigest(o.book.get(ext))) note(`${ext}: the account as stored differs from the book's`);
        const s = stored.get(ext);
        // `<form>:sha256:<hex>`: the form is the service build's (this checker may run another).
        if (!s) note(`${ext}: no stored digest (${(await queued()) > 0 ? 'still queued for the filler after a minute' : 'not queued'})`);
        else if (s.slice(s.indexOf(':') + 1) !== fresh) note(`${ext}: the stored digest is not the digest of its rows`);
      }
    }
  }

  // The execution of each row's run: closed, and its ImportStatus equal to the row's status.
  const queue = [...rows];
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let r = queue.shift(); r; r = queue.shift()) {
        try {
          const d = await o.temporal.workflow.getHandle(r.workflow_id).describe();
          if ((d.memo as { run?: number } | undefined)?.run !== r.run) note(`${r.external_account_number}: latest execution is not run ${r.run}`);
          if (d.status.name !== 'COMPLETED') note(`${r.external_account_number}: workflow ${d.status.name}`);
          const sa = d.searchAttributes.ImportStatus as string[] | undefined;
          if (sa?.[0] !== r.status) note(`${r.external_account_number}: ImportStatus ${sa?.[0]} but the row is ${r.status}`);
        } catch (err) {
          note(`${r.external_account_number}: describe failed: ${String(err)}`);
        }
      }
    }),
  );
  return { accounts: exts.length, problems };
}

/** What checkBuilds found: the figures of a deploy in the middle of a migration, and what is wrong. */
export interface BuildsCheck {
  /** Imports of the book that ran on the old build A, on the new build B. */
  onA: number;
  onB: number;
  /** Created while the routing changed (started before the switch, first task after it): either build is right. */
  acrossSwitch: number;
  /** On A and still open when A's workers were killed. */
  openOnAAtKill: number;
  problems: string[];
}

/**
 * The build each import of the book ran on, after build B was made current in the middle of the
 * migration while imports were open on the old build A (the fault suite's `deploy` scenario,
 * docs/deploys.md): an import is PINNED, so every workflow task of its execution was completed by
 * one build, the one its execution is pinned to and that visibility lists it under
 * (TemporalWorkerDeploymentVersion = '<deployment>:<build>'). One whose first workflow task
 * completed before the switch began ran on A; one started after the switch took effect ran on B.
 * Both builds must have run some, and some of A's must have been open when A's workers were killed
 * (else the scenario did not test what it says).
 */
export async function checkBuilds(o: {
  db: Knex;
  temporal: Client;
  supplier: string;
  exts: string[];
  deploymentName: string;
  taskQueue: string;
  a: string;
  b: string;
  /** ms epoch: just before the switch was asked for, and once the task queues routed by it */
  switchFrom: number;
  switchedAt: number;
  /** ms epoch of the SIGKILL of A's workers */
  killedAt: number;
}): Promise<BuildsCheck> {
  const problems: string[] = [];
  const note = (p: string) => {
    if (problems.length < 50) problems.push(p);
  };
  const ms = (ts: Parameters<typeof optionalTsToMs>[0]) => optionalTsToMs(ts) ?? NaN;
  const rows: { external_account_number: string; workflow_id: string }[] = await o.db('import_processes')
    .select('external_account_number', 'workflow_id')
    .where({ import_supplier: o.supplier })
    .whereIn('external_account_number', o.exts);

  interface Ran {
    ext: string;
    runId: string;
    build: string;
  }
  const ran: Ran[] = [];
  const r: BuildsCheck = { onA: 0, onB: 0, acrossSwitch: 0, openOnAAtKill: 0, problems };
  const queue = [...rows];
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let row = queue.shift(); row; row = queue.shift()) {
        const ext = row.external_account_number;
        try {
          const handle = o.temporal.workflow.getHandle(row.workflow_id);
          const d = await handle.describe();
          const events = (await o.temporal.workflow.getHandle(row.workflow_id, d.runId).fetchHistory()).events ?? [];
          const startedAt = ms(events.find((e) => e.workflowExecutionStartedEventAttributes)?.eventTime);
          const tasks = events.filter((e) => e.workflowTaskCompletedEventAttributes);
          const builds = [...new Set(tasks.map((e) => e.workflowTaskCompletedEventAttributes!.deploymentVersion?.buildId || '(unversioned)'))];
          if (builds.length !== 1 || ![o.a, o.b].includes(builds[0]!)) {
            note(`${ext}: workflow tasks completed by ${builds.join(' and ') || 'no build'}; one of ${o.a}, ${o.b} expected`);
            continue;
          }
          const build = builds[0]!;
          const pinned = d.raw.workflowExecutionInfo?.versioningInfo;
          if (pinned && (pinned.behavior !== VersioningBehavior.VERSIONING_BEHAVIOR_PINNED || pinned.deploymentVersion?.buildId !== build)) {
            note(`${ext}: ran on ${build} but its execution is ${VersioningBehavior[pinned.behavior ?? 0]} on ${pinned.deploymentVersion?.buildId ?? 'no build'}`);
          }
          const firstTaskAt = ms(tasks[0]!.eventTime);
          const closedAt = d.closeTime?.getTime() ?? Infinity;
          if (firstTaskAt < o.switchFrom && build !== o.a) note(`${ext}: started on the old build before the switch but ran on ${build}`);
          if (startedAt > o.switchedAt && build !== o.b) note(`${ext}: created after ${o.b} became current but ran on ${build}`);
          if (!(firstTaskAt < o.switchFrom) && !(startedAt > o.switchedAt)) r.acrossSwitch++;
          if (build === o.a) {
            r.onA++;
            if (closedAt > o.killedAt) r.openOnAAtKill++;
          } else r.onB++;
          ran.push({ ext, runId: d.runId, build });
        } catch (err) {
          note(`${ext}: history of its execution: ${String(err)}`);
        }
      }
    }),
  );

  // Visibility lists each execution under the build it ran on (what an operator filters on).
  const listed = async () => {
    const m = new Map<string, string>();
    for (const build of [o.a, o.b]) {
      const query = `TaskQueue = '${o.taskQueue}' AND WorkflowType = 'accountImport' AND TemporalWorkerDeploymentVersion = '${o.deploymentName}:${build}'`;
      for await (const w of o.temporal.workflow.list({ query })) m.set(w.runId, build);
    }
    return m;
  };
  let wrong: string[] = [];
  for (let attempt = 0; attempt < 20; attempt++) {
    const m = await listed();
    wrong = ran.filter((x) => m.get(x.runId) !== x.build).map((x) => `${x.ext}: ran on ${x.build}, visibility lists it under ${m.get(x.runId) ?? 'neither build'}`);
    if (wrong.length === 0) break;
    await new Promise((res) => setTimeout(res, 1000));
  }
  wrong.forEach(note);

  if (r.onA === 0) note(`no import of the book ran on the old build ${o.a}: the switch was not in the middle of the migration`);
  if (r.onB === 0) note(`no import of the book ran on the new build ${o.b} after it became current`);
  if (r.openOnAAtKill === 0) note(`no import was open on ${o.a} when its workers were killed: the kill did not hit a draining build`);
  return r;
}
