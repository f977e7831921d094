import crypto from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { createTestDatabase, TestDatabase } from '../support/db';
import { TEST_NATS_URL } from '../support/env';
import { silentLog } from '../support/stack';
import { readStream } from '../support/stream';
import { connectNats, ensureStream, NatsConnection } from '../../events/nats';
import { OutboxRelay } from '../../events/relay';
import { enqueueEvents, NewEvent } from '../../events/outbox';

/**
 * The trace context an outbox row keeps (migration 0015) reaches the message also when the relay's
 * own process traces nothing (this jest process starts no SDK): the stored `traceparent` and
 * `tracestate` are passed on as they are, so a consumer continues the import's trace; a row
 * written outside a trace publishes no trace header. With tracing on, the relay's publish span
 * and its header are held by test/integration/tracing.test.ts.
 */
describe('outbox relay: the stored trace context on the message', () => {
  let t: TestDatabase;
  let nc: NatsConnection;
  const id = crypto.randomBytes(4).toString('hex');
  const prefix = `tc${id}`;
  const stream = `TC_${id}`;

  beforeAll(async () => {
    t = await createTestDatabase();
    nc = await connectNats(TEST_NATS_URL, `relay-trace-${id}`);
    await ensureStream(nc, { stream, subjectPrefix: prefix, duplicateWindowMs: 10 * 60_000, maxAgeMs: 60 * 60_000, maxBytes: -1, replicas: 1 });
  });
  afterAll(async () => {
    const jsm = await jetstreamManager(nc);
    await jsm.streams.delete(stream).catch(() => undefined);
    await nc.close();
    await t.drop();
  });

  const event = (key: string): NewEvent => ({
    type: 'data_import.import_process.complete',
    version: 'v1',
    data: { resource_type: 'account', external_identifier: key, identifier: 'A-1' },
    key: `trace-context:${key}`,
    orderingKey: `trace-context:${key}`,
    occurredAt: new Date(),
  });

  it('publishes traceparent and tracestate as the row keeps them, and none for an untraced row', async () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const tracestate = 'vendor=opaque';
    const [traced] = await enqueueEvents(t.db, prefix, [event('traced')]);
    const [plain] = await enqueueEvents(t.db, prefix, [event('plain')]);
    // No trace was active when they were written (tracing is off here): the columns stay NULL.
    expect(await t.db('outbox').whereIn('event_id', [traced!, plain!]).select('traceparent', 'tracestate')).toEqual([
      { traceparent: null, tracestate: null },
      { traceparent: null, tracestate: null },
    ]);
    // As a traced step in another process would have written it.
    await t.db('outbox').where({ event_id: traced }).update({ traceparent, tracestate });

    const relay = new OutboxRelay({ db: t.db, databaseUrl: t.url, nc, log: silentLog, batchSize: 10, pollIntervalMs: 25 });
    expect(await relay.drainOnce()).toBe(2);
    await relay.stop();

    const messages = await readStream(nc, stream);
    expect(messages.map((m) => ({ id: m.msgId, traceparent: m.traceparent, tracestate: m.tracestate }))).toEqual([
      { id: traced, traceparent, tracestate },
      { id: plain, traceparent: undefined, tracestate: undefined },
    ]);
  });
});
