import crypto from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { enqueueEvents, NewEvent } from '../../events/outbox';
import { connectNats, ensureStream, type NatsConnection } from '../../events/nats';
import type { Db } from '../../db/knex';
import { createTestDatabase, type TestDatabase } from './db';
import { TEST_NATS_URL } from './env';

/**
 * `count` `complete` events per import key, each import written in a transaction of its own, as
 * the import steps write them: the relay tests' outbox. Returns the event ids in outbox order.
 */
export async function writeCompleteEvents(db: Db, subjectPrefix: string, imports: string[], count: number): Promise<string[]> {
  const ids: string[] = [];
  for (const key of imports) {
    const events: NewEvent[] = Array.from({ length: count }, (_, i) => ({
      type: 'data_import.import_process.complete',
      version: 'v1',
      data: { resource_type: 'account', external_identifier: key, identifier: `A-${i}` },
      key: `${key}:event-${i}`,
      orderingKey: key,
      occurredAt: new Date(),
    }));
    ids.push(...(await db.transaction((trx) => enqueueEvents(trx, subjectPrefix, events))));
  }
  return ids;
}

/** Outbox rows not published yet. */
export async function unpublishedCount(db: Db): Promise<number> {
  return Number((await db('outbox_pending').count({ n: '*' }))[0]!.n);
}

/** A relay test's own database, NATS connection and stream, its subjects under a prefix of its own. */
export interface RelayBed {
  t: TestDatabase;
  nc: NatsConnection;
  prefix: string;
  stream: string;
  /** Deletes the stream, closes the connection, drops the database (stop the relays first). */
  dispose(): Promise<void>;
}

/** `letter` starts the prefix (`r1a2b3c4d`) and the stream (`R_1a2b3c4d`); `name` the connection's. */
export async function openRelayBed(letter: string, name: string): Promise<RelayBed> {
  const id = crypto.randomBytes(4).toString('hex');
  const prefix = `${letter}${id}`;
  const stream = `${letter.toUpperCase()}_${id}`;
  const t = await createTestDatabase();
  const nc = await connectNats(TEST_NATS_URL, `${name}-${id}`);
  await ensureStream(nc, { stream, subjectPrefix: prefix, duplicateWindowMs: 10 * 60_000, maxAgeMs: 60 * 60_000, maxBytes: -1, replicas: 1 });
  return {
    t,
    nc,
    prefix,
    stream,
    async dispose() {
      const jsm = await jetstreamManager(nc);
      await jsm.streams.delete(stream).catch(() => undefined);
      await nc.close();
      await t.drop();
    },
  };
}
