/**
 * What must be true of a book after a migration through faults (issue "Nothing gets stuck"): every
 * account PROCESSED with its post-import done, one account row each, one `complete` and one
 * `post_import.completed` event each in the outbox and on the stream under the same id, every
 * workflow's ImportStatus equal to its row's status, nothing FAILED at the client.
 */
import type { Knex } from 'knex';
import type { Client } from '@temporalio/client';
import type { NatsConnection } from '../../events/nats';
import { readStream } from '../support/stream';

export interface BookCheck {
  accounts: number;
  problems: string[];
}

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
