import { createMetrics } from '../../lib/metrics';
import { OutboxRelay } from '../../events/relay';
import { listAllSetAside, setAsideCounts } from '../../maintenance/setAside';
import { buildSummary } from '../../ops/summary';
import { openRelayBed, RelayBed, writeCompleteEvents } from '../support/outboxEvents';
import { silentLog } from '../support/stack';
import { readStream } from '../support/stream';
import { runCli } from '../unit/cli/runCli';

/**
 * A poison event of the outbox relay (issue 47, item 4): an event NATS refuses for itself (its
 * envelope, grown through the database, is over the server's max_payload) is retried a bounded
 * number of times, then set aside with its reason, counted and named, while every other account's
 * events go out. Per-account order holds: the later events of its account wait behind it
 * (docs/events.md "Ordering"), and go out after it once an operator fixed and retried it.
 */
describe('outbox relay with a poison event', () => {
  let bed: RelayBed;
  let ids: string[];
  let poisonSeq: number;
  const metrics = createMetrics('test');

  beforeAll(async () => {
    bed = await openRelayBed('p', 'relay-poison');
    ids = await writeCompleteEvents(bed.t.db, bed.prefix, ['acct-A', 'acct-POISON', 'acct-B'], 3);
    // The poison, injected as a row the relay reads: the POISON account's first event, larger than NATS takes.
    const maxPayload = bed.nc.info!.max_payload;
    await bed.t.db.raw(`UPDATE outbox SET envelope = jsonb_set(envelope, '{data,padding}', to_jsonb(repeat('x', ?))) WHERE event_id = ?`, [maxPayload + 1, ids[3]]);
    poisonSeq = Number(((await bed.t.db('outbox').where({ event_id: ids[3] }).first('seq')) as { seq: string }).seq);
  });
  afterAll(async () => {
    await bed.dispose();
  });

  const published = async () => (await readStream(bed.nc, bed.stream)).map((m) => m.msgId);

  it('sets the poison event aside after its attempts while every other account’s events go out, and holds its account’s later events', async () => {
    const relay = new OutboxRelay({ db: bed.t.db, databaseUrl: bed.t.url, nc: bed.nc, log: silentLog, metrics, batchSize: 4, pollIntervalMs: 25 });
    expect(await relay.drainOnce()).toBe(6);
    await relay.stop();
    // Accounts A and B complete; POISON's first event set aside, its two later ones held behind it.
    expect((await published()).sort()).toEqual([...ids.slice(0, 3), ...ids.slice(6)].sort());
    const [item] = await listAllSetAside(bed.t.db, { queue: 'outbox' });
    expect(item).toMatchObject({ queue: 'outbox', id: poisonSeq, item: 'data_import.import_process.complete-v1', supplier: null, attempts: 3, held: 2 });
    expect(item!.reason).toMatch(/max_payload/);
    expect(await bed.t.db('outbox_pending').count({ n: '*' })).toEqual([{ n: '3' }]);
    expect((await metrics.queueItemsSetAside.get()).values).toEqual([expect.objectContaining({ labels: { queue: 'outbox' }, value: 1 })]);
    expect((await metrics.queueItemFailures.get()).values).toEqual([expect.objectContaining({ labels: { queue: 'outbox' }, value: 3 })]);
    // A relay that runs again publishes nothing of the held account and does not touch the set-aside row.
    const again = new OutboxRelay({ db: bed.t.db, databaseUrl: bed.t.url, nc: bed.nc, log: silentLog, batchSize: 4, pollIntervalMs: 25 });
    expect(await again.drainOnce()).toBe(0);
    await again.stop();
    expect((await listAllSetAside(bed.t.db, { queue: 'outbox' }))[0]).toMatchObject({ attempts: 3, held: 2 });
    // Counted on the operations page and named by the operator command.
    expect(await setAsideCounts(bed.t.db)).toEqual({ digest: 0, outbox: 1, sweeper: 0, email: 0, retention: 0 });
    const summary = await buildSummary(bed.t.db, { supplier: null, hours: 1, temporal: { uiUrl: 'http://ui', namespace: 'default' } });
    expect(summary.set_aside).toEqual({ digest: 0, outbox: 1, sweeper: 0, email: 0, retention: 0 });
    const listed = await runCli(['set-aside', 'list', '--queue', 'outbox', '--json'], { APP_ENV: 'test', DATABASE_URL: bed.t.url });
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ queue: 'outbox', id: poisonSeq, attempts: 3, held: 2 })]);
    expect((await runCli(['set-aside', 'list', '--queue', 'nope'], { APP_ENV: 'test', DATABASE_URL: bed.t.url })).code).toBe(1);
  });

  it('publishes the retried event, then the events it held, in their order', async () => {
    // The operator's fix (the event made small enough), then the retry.
    await bed.t.db.raw(`UPDATE outbox SET envelope = envelope #- '{data,padding}' WHERE seq = ?`, [poisonSeq]);
    const retried = await runCli(['set-aside', 'retry', 'outbox', String(poisonSeq)], { APP_ENV: 'test', DATABASE_URL: bed.t.url });
    expect(retried).toMatchObject({ code: 0, stdout: `put back on the outbox queue: ${poisonSeq}\n` });
    const relay = new OutboxRelay({ db: bed.t.db, databaseUrl: bed.t.url, nc: bed.nc, log: silentLog, batchSize: 4, pollIntervalMs: 25 });
    expect(await relay.drainOnce()).toBe(3);
    await relay.stop();
    const poisonAccount = (await readStream(bed.nc, bed.stream)).filter((m) => m.envelope.data && (m.envelope.data as { external_identifier?: string }).external_identifier === 'acct-POISON');
    expect(poisonAccount.map((m) => m.msgId)).toEqual(ids.slice(3, 6));
    expect(await setAsideCounts(bed.t.db)).toEqual({ digest: 0, outbox: 0, sweeper: 0, email: 0, retention: 0 });
  });
});
