import type { TestDatabase } from '../support/db';
import { eventually, silentLog } from '../support/stack';
import { readStream } from '../support/stream';
import { openRelayBed, RelayBed, unpublishedCount, writeCompleteEvents } from '../support/outboxEvents';
import { recordingConnection } from '../support/recordingNats';
import { startSilentProxy, SilentProxy } from '../support/silentProxy';
import type { NatsConnection } from '../../events/nats';
import { OutboxRelay } from '../../events/relay';
import { createDb, Db } from '../../db/knex';

/**
 * A relay leader whose every PostgreSQL connection goes silent (its host lost power or its link:
 * nothing is closed, nothing answers) stops the events of the others for at most its lease, with
 * the default settings (OUTBOX_LEADER_LEASE_MS 10 s; docs/events.md, "The relay's leader"), not
 * for PostgreSQL's tcp_keepalives_idle (two hours by default). Once healed, the old leader
 * publishes nothing while the new one leads, and the stream holds each event once.
 */
describe('outbox relay: a silent leader loses the leadership in bounded time', () => {
  let bed: RelayBed;
  let t: TestDatabase;
  let nc: NatsConnection;
  let proxy: SilentProxy;
  let proxiedDb: Db;
  let proxiedUrl: string;
  let prefix: string;
  let stream: string;
  const relays: OutboxRelay[] = [];

  beforeAll(async () => {
    bed = await openRelayBed('s', 'relay-silent');
    ({ t, nc, prefix, stream } = bed);
    const u = new URL(t.url);
    proxy = await startSilentProxy(u.hostname, Number(u.port || 5432));
    u.host = proxy.address;
    proxiedUrl = u.toString();
    proxiedDb = createDb(proxiedUrl, 3);
  });
  afterAll(async () => {
    proxy.heal();
    for (const r of relays.splice(0)) await r.stop();
    await proxiedDb.destroy();
    await proxy.close();
    await bed.dispose();
  });

  const writeImports = (imports: string[], count: number) => writeCompleteEvents(t.db, prefix, imports, count);
  const unpublished = () => unpublishedCount(t.db);

  it('lets a standby take over within the default lease, and the healed leader publishes nothing more', async () => {
    const byOld: string[] = [];
    const byNew: string[] = [];
    const oldLeader = new OutboxRelay({
      db: proxiedDb,
      databaseUrl: proxiedUrl,
      nc: recordingConnection(nc, (id) => byOld.push(id)),
      log: silentLog,
      batchSize: 50,
      pollIntervalMs: 250,
    });
    relays.push(oldLeader);
    oldLeader.start();
    await eventually(async () => oldLeader.isLeader() || undefined, 15_000);
    const standBy = new OutboxRelay({ db: t.db, databaseUrl: t.url, nc: recordingConnection(nc, (id) => byNew.push(id)), log: silentLog, batchSize: 50, pollIntervalMs: 250 });
    relays.push(standBy);
    standBy.start();

    const before = await writeImports(['SIL-A', 'SIL-B'], 5);
    await eventually(async () => ((await unpublished()) === 0 ? true : undefined), 15_000);
    expect([...byOld].sort()).toEqual([...before].sort());
    expect(byNew).toEqual([]);
    expect(standBy.isLeader()).toBe(false);

    // The leader's host goes silent; the rest of the service goes on writing events.
    proxy.silence();
    const silentAt = Date.now();
    const during = await writeImports(['SIL-C', 'SIL-D'], 5);
    await eventually(async () => ((await unpublished()) === 0 ? true : undefined), 40_000, 200);
    const resumedAfterMs = Date.now() - silentAt;
    // Printed for the record (docs/events.md quotes it). The 30 s bound itself is not a jest
    // assertion (timers on a loaded machine are late): the wait above is bounded, and the hosts
    // harness checks events resumed within BOUND_EVENTS_MS (30 s) in leader-cut, part of npm test.
    process.stdout.write(`relay leader silent: events resumed after ${resumedAfterMs} ms (lease 10000 ms)\n`);
    expect(standBy.isLeader()).toBe(true);
    expect(oldLeader.isLeader()).toBe(false);
    expect([...byNew].sort()).toEqual([...during].sort());
    const oldCountAtTakeover = byOld.length;

    // Healed: what the old leader's connections held arrives, and it publishes nothing more while
    // the new leader holds the lock.
    proxy.heal();
    const after = await writeImports(['SIL-E'], 5);
    await eventually(async () => ((await unpublished()) === 0 ? true : undefined), 15_000);
    await new Promise((r) => setTimeout(r, 2000));
    expect(byOld).toHaveLength(oldCountAtTakeover);
    expect(oldLeader.isLeader()).toBe(false);
    expect([...byNew].sort()).toEqual([...during, ...after].sort());
    const ids = (await readStream(nc, stream)).map((m) => m.envelope.id);
    expect([...ids].sort()).toEqual([...before, ...during, ...after].sort());
  });
});
