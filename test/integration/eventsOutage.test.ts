import request from 'supertest';
import { eventually, startStack, Stack } from '../support/stack';
import { uniqueAccount } from '../support/fixtures';
import { readStream } from '../support/stream';
import { NatsServer, startNatsServer } from '../support/natsServer';

interface OutboxRow {
  seq: string;
  event_id: string;
  event_type: string;
  ordering_key: string;
  published: boolean;
  attempts: number | null;
}

const EXTERNALS = ['OUT-1', 'OUT-2', 'OUT-3', 'OUT-4', 'OUT-5'];

describe('events during a NATS outage', () => {
  let nats: NatsServer;
  let s: Stack;

  beforeAll(async () => {
    // startStack creates the stream, so the server must answer first; the outage comes later.
    nats = await startNatsServer();
    s = await startStack({ env: { NATS_URL: nats.url } });
  });
  afterAll(async () => {
    await s?.stop();
    await nats?.dispose();
  });

  const outbox = (): Promise<OutboxRow[]> =>
    // Published = off the pending queue (migration 0010); attempts live on the queue row.
    s.t
      .db('outbox as o')
      .leftJoin('outbox_pending as p', 'p.seq', 'o.seq')
      .select('o.seq', 'o.event_id', 'o.event_type', 'o.ordering_key', s.t.db.raw('p.seq IS NULL AS published'), 'p.attempts')
      .orderBy('o.seq');

  it('completes imports while NATS is down, keeps their events in the outbox, then delivers each once in order per import', async () => {
    await nats.stop();

    for (const external of EXTERNALS) {
      const res = await s.request().post('/v2/data-import/accounts/').send(uniqueAccount(external));
      expect(res.status).toBe(201);
    }
    // Post-import follow-ups write the last event of each import; wait for them so the backlog is whole.
    const pending = await eventually(async () => {
      const rows = await outbox();
      const done = rows.filter((r) => r.event_type === 'data_import.import_process.post_import.completed');
      return done.length === EXTERNALS.length ? rows : undefined;
    }, 90_000);
    for (const external of EXTERNALS) {
      const r = await s.request().get(`/v2/data-import/accounts/DEMO_ENERGY/${external}/`);
      expect(r.body.status).toBe('PROCESSED');
    }
    expect(pending.filter((r) => r.published)).toEqual([]);
    // The relay did try, and failed, while the server was away.
    await eventually(async () => ((await outbox()).some((r) => (r.attempts ?? 0) > 0) ? true : undefined), 20_000);
    expect(new Set(pending.map((r) => r.ordering_key)).size).toBe(EXTERNALS.length);

    await nats.start();

    const published = await eventually(async () => {
      const rows = await outbox();
      return rows.every((r) => r.published) ? rows : undefined;
    }, 60_000);
    expect(published).toHaveLength(pending.length);

    const stored = await readStream(s.nc, s.stream);
    const streamIds = stored.map((m) => m.envelope.id);
    // Each event id exactly once on the stream, and nothing else there.
    expect(new Set(streamIds).size).toBe(streamIds.length);
    expect([...streamIds].sort()).toEqual(published.map((r) => r.event_id).sort());
    for (const m of stored) expect(m.msgId).toBe(m.envelope.id);

    // Per import, the stream order is the outbox (commit) order.
    const position = new Map(streamIds.map((id, i) => [id, i]));
    const byKey = new Map<string, string[]>();
    for (const r of published) byKey.set(r.ordering_key, [...(byKey.get(r.ordering_key) ?? []), r.event_id]);
    for (const ids of byKey.values()) {
      const inStreamOrder = [...ids].sort((a, b) => position.get(a)! - position.get(b)!);
      expect(inStreamOrder).toEqual(ids);
    }
  }, 180_000);
});
