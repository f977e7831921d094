import { OutboxPublisher } from '../../events/publisher';
import { openRelayBed, RelayBed, writeCompleteEvents } from '../support/outboxEvents';
import { silentLog } from '../support/stack';
import { readStream } from '../support/stream';

/**
 * What a relay leader that was cut off (or frozen, or killed) leaves behind: its whole claimed batch
 * with one unfinished attempt each. The next leader claims it as a batch again, not one event per
 * round trip (the hosts harness's leader-cut: events resumed after 33 s instead of 9 s while the
 * dead leader's batch, already in the stream, went out again one by one). Only a batch that died
 * twice is taken one event at a time (events/outbox.ts suspectAfter).
 */
describe('outbox relay after a leader died with its batch in hand', () => {
  let bed: RelayBed;
  beforeAll(async () => {
    bed = await openRelayBed('c', 'relay-after-cut');
  });
  afterAll(async () => {
    await bed.dispose();
  });

  const leftBehind = (unfinished: number) =>
    bed.t.db.raw(`UPDATE outbox_pending SET attempted_at = now() - interval '30 seconds', item_attempts = ?`, [unfinished]);

  it('claims a batch with one unfinished attempt as a batch, and one that died twice event by event', async () => {
    const publisher = new OutboxPublisher({ db: bed.t.db, nc: bed.nc, log: silentLog, batchSize: 50 });
    const first = await writeCompleteEvents(bed.t.db, bed.prefix, ['acct-A', 'acct-B', 'acct-C', 'acct-D'], 5);
    await leftBehind(1);
    expect(await publisher.publishBatch()).toMatchObject({ published: 20, failed: 0, setAside: [] });

    const second = await writeCompleteEvents(bed.t.db, bed.prefix, ['acct-E', 'acct-F'], 3);
    await leftBehind(2);
    const batches: number[] = [];
    for (let i = 0; i < 10; i++) {
      const { published } = await publisher.publishBatch();
      if (published === 0) break;
      batches.push(published);
    }
    expect(batches).toEqual([1, 1, 1, 1, 1, 1]);
    expect((await readStream(bed.nc, bed.stream)).map((m) => m.msgId).sort()).toEqual([...first, ...second].sort());
    expect(await bed.t.db('outbox_pending').count({ n: '*' })).toEqual([{ n: '0' }]);
  });
});
