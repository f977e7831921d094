import type { TestDatabase } from '../support/db';
import { TEST_NATS_URL } from '../support/env';
import { eventually, silentLog } from '../support/stack';
import { readStream } from '../support/stream';
import { openRelayBed, RelayBed, unpublishedCount, writeCompleteEvents } from '../support/outboxEvents';
import { recordingConnection } from '../support/recordingNats';
import { startSilentProxy, SilentProxy } from '../support/silentProxy';
import { connectNats, NatsConnection } from '../../events/nats';
import { OutboxRelay } from '../../events/relay';
import { createMetrics } from '../../lib/metrics';

/**
 * A relay leader that can no longer reach NATS while PostgreSQL still answers its heartbeats (its
 * host cut off from the NATS servers only, or its server cut off from the stream's quorum) keeps
 * its lease; before the step-down it kept it for the whole outage and every event of the service
 * waited. Now it hands the leadership over once it has published nothing for longer than the lease
 * (docs/events.md, "The relay's leader"): a standby that reaches NATS publishes, each event once.
 */
describe('outbox relay: a leader that cannot reach NATS hands the leadership over', () => {
  let bed: RelayBed;
  let t: TestDatabase;
  let nc: NatsConnection;
  let proxiedNc: NatsConnection;
  let proxy: SilentProxy;
  let prefix: string;
  let stream: string;
  const relays: OutboxRelay[] = [];

  beforeAll(async () => {
    bed = await openRelayBed('n', 'relay-nats-silent');
    ({ t, nc, prefix, stream } = bed);
    const u = new URL(TEST_NATS_URL.split(',')[0]!);
    proxy = await startSilentProxy(u.hostname, Number(u.port || 4222));
    proxiedNc = await connectNats(`nats://${proxy.address}`, `relay-nats-silent-proxied-${prefix}`);
  });
  afterAll(async () => {
    proxy.heal();
    for (const r of relays.splice(0)) await r.stop();
    await proxiedNc.close().catch(() => undefined);
    await proxy.close();
    await bed.dispose();
  });

  const unpublished = () => unpublishedCount(t.db);

  it('lets a standby that reaches NATS publish within the bound, each event once', async () => {
    const byOld: string[] = [];
    const byNew: string[] = [];
    const metrics = createMetrics('worker');
    const oldLeader = new OutboxRelay({ db: t.db, databaseUrl: t.url, nc: recordingConnection(proxiedNc, (id) => byOld.push(id)), log: silentLog, metrics, batchSize: 50, pollIntervalMs: 250 });
    relays.push(oldLeader);
    oldLeader.start();
    await eventually(async () => oldLeader.isLeader() || undefined, 15_000);
    const standBy = new OutboxRelay({ db: t.db, databaseUrl: t.url, nc: recordingConnection(nc, (id) => byNew.push(id)), log: silentLog, batchSize: 50, pollIntervalMs: 250 });
    relays.push(standBy);
    standBy.start();

    const before = await writeCompleteEvents(t.db, prefix, ['NS-A', 'NS-B'], 5);
    await eventually(async () => ((await unpublished()) === 0 ? true : undefined), 15_000);
    expect([...byOld].sort()).toEqual([...before].sort());
    expect(standBy.isLeader()).toBe(false);

    // The leader's NATS goes silent; PostgreSQL still answers it.
    proxy.silence();
    const silentAt = Date.now();
    const during = await writeCompleteEvents(t.db, prefix, ['NS-C', 'NS-D'], 5);
    await eventually(async () => ((await unpublished()) === 0 ? true : undefined), 45_000, 200);
    const resumedAfterMs = Date.now() - silentAt;
    // Printed for the record (docs/events.md quotes it). The 30 s bound itself is not a jest
    // assertion (timers on a loaded machine are late): the wait above is bounded, and the hosts
    // harness checks events resumed within BOUND_EVENTS_MS (30 s) in leader-cut, part of npm test.
    process.stdout.write(`relay leader without NATS: events resumed after ${resumedAfterMs} ms (lease 10000 ms)\n`);
    expect(standBy.isLeader()).toBe(true);
    expect(oldLeader.isLeader()).toBe(false);
    expect(byNew.filter((id) => during.includes(id)).sort()).toEqual([...during].sort());
    expect((await metrics.registry.getSingleMetric('data_import_relay_step_downs_total')!.get()).values[0]!.value).toBeGreaterThanOrEqual(1);

    // Healed: whatever the old leader's connection held reaches the stream under the same ids
    // (JetStream drops the repeats), and the old leader stays a standby.
    proxy.heal();
    const after = await writeCompleteEvents(t.db, prefix, ['NS-E'], 5);
    await eventually(async () => ((await unpublished()) === 0 ? true : undefined), 15_000);
    expect(oldLeader.isLeader()).toBe(false);
    const ids = (await readStream(nc, stream)).map((m) => m.envelope.id);
    expect([...ids].sort()).toEqual([...before, ...during, ...after].sort());
  });
});
