import { createTestDatabase, type TestDatabase } from '../support/db';
import { eventually, silentLog } from '../support/stack';
import { readStream } from '../support/stream';
import { openRelayBed, RelayBed, unpublishedCount, writeCompleteEvents } from '../support/outboxEvents';
import { recordingConnection } from '../support/recordingNats';
import type { NatsConnection } from '../../events/nats';
import { OutboxRelay, RelayOptions } from '../../events/relay';
import { enqueueEvents, EventSchemaError } from '../../events/outbox';

/**
 * The relay against the real PostgreSQL and JetStream: a crash between the stream's ack and the
 * outbox mark republishes the same ids, which JetStream drops; two relays never both publish.
 */
describe('outbox relay redelivery', () => {
  let bed: RelayBed;
  let t: TestDatabase;
  let nc: NatsConnection;
  let prefix: string;
  let stream: string;
  const relays: OutboxRelay[] = [];

  beforeEach(async () => {
    bed = await openRelayBed('r', 'relay-test');
    ({ t, nc, prefix, stream } = bed);
  });
  afterEach(async () => {
    for (const r of relays.splice(0)) await r.stop();
    await bed.dispose();
  });

  /**
   * The relay's crash between the stream's ack and the outbox mark, made by the real database: the
   * next `times` deletes from outbox_pending (the mark) fail with SQLSTATE TE001. A sequence
   * counts them, since the failed statement's own writes roll back.
   */
  async function failMarks(times: number): Promise<void> {
    await t.db.raw('CREATE SEQUENCE relay_fault_seq');
    await t.db.raw(`CREATE FUNCTION relay_fault() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF nextval('relay_fault_seq') <= ${times} THEN
          RAISE EXCEPTION 'relay crashed after the ack' USING ERRCODE = 'TE001';
        END IF;
        RETURN NULL;
      END $$`);
    await t.db.raw('CREATE TRIGGER relay_fault BEFORE DELETE ON outbox_pending FOR EACH STATEMENT EXECUTE FUNCTION relay_fault()');
  }

  function relay(extra: Partial<RelayOptions> = {}): OutboxRelay {
    const r = new OutboxRelay({ db: t.db, databaseUrl: t.url, nc, log: silentLog, batchSize: 7, pollIntervalMs: 25, ...extra });
    relays.push(r);
    return r;
  }

  /** `count` complete events per import, each import written in its own transaction. */
  const writeImports = (imports: string[], count: number) => writeCompleteEvents(t.db, prefix, imports, count);

  const unpublished = () => unpublishedCount(t.db);

  async function expectEachIdOnceInOutboxOrder(ids: string[]) {
    const stored = await readStream(nc, stream);
    const streamIds = stored.map((m) => m.envelope.id);
    expect([...streamIds].sort()).toEqual([...ids].sort());
    const position = new Map(streamIds.map((id, i) => [id, i]));
    const rows: { event_id: string; ordering_key: string }[] = await t.db('outbox').select('event_id', 'ordering_key').orderBy('seq');
    for (const key of new Set(rows.map((r) => r.ordering_key))) {
      const inOutbox = rows.filter((r) => r.ordering_key === key).map((r) => r.event_id);
      expect([...inOutbox].sort((a, b) => position.get(a)! - position.get(b)!)).toEqual(inOutbox);
    }
  }

  it('republishes after a crash between ack and mark, and the stream keeps each id once', async () => {
    const ids = await writeImports(['IMP-A', 'IMP-B', 'IMP-C'], 4);
    await failMarks(1);
    const crashed = relay();
    // The first batch reached the stream but was never marked.
    await expect(crashed.drainOnce()).rejects.toMatchObject({ code: 'TE001' });
    expect((await readStream(nc, stream)).length).toBe(7);
    expect(await unpublished()).toBe(ids.length);

    const next = relay();
    expect(await next.drainOnce()).toBe(ids.length);
    expect(await unpublished()).toBe(0);
    await expectEachIdOnceInOutboxOrder(ids);
  });

  it('recovers by itself when its running loop crashes once after an ack', async () => {
    const ids = await writeImports(['IMP-D', 'IMP-E'], 9);
    await failMarks(1);
    const published: string[] = [];
    const r = relay({ nc: recordingConnection(nc, (id) => published.push(id)) });
    r.start();
    await eventually(async () => ((await unpublished()) === 0 ? true : undefined), 30_000);
    // The crashed batch (7 rows) was published a second time (same ids), and JetStream dropped
    // the copies: 18 events, 25 publishes.
    expect(published).toHaveLength(ids.length + 7);
    // Chains of different imports are acked concurrently, so compare the batches as sets.
    expect([...published.slice(7, 14)].sort()).toEqual([...published.slice(0, 7)].sort());
    await expectEachIdOnceInOutboxOrder(ids);
  });

  it('lets only the leader publish while two relays run, and the other takes over when it stops', async () => {
    const publishedBy = new Map<string, string[]>();
    const named = (name: string) => {
      const published: string[] = [];
      publishedBy.set(name, published);
      return relay({ nc: recordingConnection(nc, (id) => published.push(id)) });
    };
    const first = named('first');
    const second = named('second');
    first.start();
    second.start();
    const ids = await writeImports(['IMP-F', 'IMP-G', 'IMP-H'], 10);
    await eventually(async () => ((await unpublished()) === 0 ? true : undefined), 30_000);
    const publishers = [...publishedBy].filter(([, published]) => published.length > 0);
    expect(publishers).toHaveLength(1);
    const [[leader]] = publishers as [[string, string[]]];
    expect([...publishedBy.get(leader!)!].sort()).toEqual([...ids].sort());

    // The leader goes away (its lock connection closes); the stand-by takes the lock and publishes.
    await (leader === 'first' ? first : second).stop();
    const later = await writeImports(['IMP-I'], 5);
    await eventually(async () => ((await unpublished()) === 0 ? true : undefined), 30_000);
    const standBy = leader === 'first' ? 'second' : 'first';
    expect(publishedBy.get(standBy)).toEqual(later);
    await expectEachIdOnceInOutboxOrder([...ids, ...later]);
  });
});

describe('writing an event whose payload fails its catalogue schema', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(async () => {
    await t.drop();
  });

  it('throws EventSchemaError and rolls back the whole transaction, valid events included', async () => {
    const base = { type: 'data_import.import_process.complete' as const, version: 'v1' as const, orderingKey: 'IMP-X', occurredAt: new Date() };
    const failure = await t.db
      .transaction(async (trx) => {
        await trx('import_suppliers').insert({ code: 'ROLLBACK_PROBE', status: 'Ongoing' });
        await enqueueEvents(trx, 'events', [{ ...base, key: 'IMP-X:ok', data: { resource_type: 'account', external_identifier: 'X', identifier: 'A-1' } }]);
        // Off the catalogue on purpose, to show the run-time check behind the compiler's.
        // @ts-expect-error `extra` is not a field of the event, `identifier` is missing
        await enqueueEvents(trx, 'events', [{ ...base, key: 'IMP-X:bad', data: { resource_type: 'account', external_identifier: 'X', extra: 1 } }]);
      })
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    expect(failure).toBeInstanceOf(EventSchemaError);
    const e = failure as EventSchemaError;
    expect({ type: e.eventType, version: e.eventVersion }).toEqual({ type: 'data_import.import_process.complete', version: 'v1' });
    expect([...e.errors].sort()).toEqual([expect.stringMatching(/^extra: additionalProperties /), expect.stringMatching(/^identifier: required /)]);
    expect(await t.db('outbox').count({ n: '*' })).toEqual([{ n: '0' }]);
    expect(await t.db('import_suppliers').where({ code: 'ROLLBACK_PROBE' })).toEqual([]);
  });

  it('rejects an event type and version the catalogue does not have', async () => {
    const failure = await t.db
      .transaction((trx) =>
        // @ts-expect-error the catalogue has no v99 of account.created (the run-time check is under test)
        enqueueEvents(trx, 'events', [{ type: 'account.created', version: 'v99', data: {}, key: 'k', orderingKey: 'k', occurredAt: new Date() }]),
      )
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    expect(failure).toBeInstanceOf(EventSchemaError);
    expect((failure as EventSchemaError).errors).toEqual([expect.stringMatching(/^non_field_errors: unknown_event /)]);
    expect(await t.db('outbox').count({ n: '*' })).toEqual([{ n: '0' }]);
  });
});
