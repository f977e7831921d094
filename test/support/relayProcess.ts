/**
 * One worker's outbox relay as its own process, started with the worker's heap flags
 * (lib/nodeOptions.ts) by test/integration/relayPoisonCrash.test.ts: publishes what DATABASE_URL's
 * outbox holds to NATS_URL with the attempt bound MAX_ATTEMPTS, then exits 0. An event whose
 * envelope does not fit the heap when read back kills it (V8 OOM), as it kills a worker's relay.
 */
import pino from 'pino';
import { createDb } from '../../db/knex';
import { connectNats } from '../../events/nats';
import { OutboxPublisher } from '../../events/publisher';

async function main() {
  const db = createDb(process.env.DATABASE_URL!, 2);
  const nc = await connectNats(process.env.NATS_URL!, 'relay-process');
  const publisher = new OutboxPublisher({ db, nc, log: pino({ level: 'silent' }), batchSize: 50, maxItemAttempts: Number(process.env.MAX_ATTEMPTS) });
  let published = 0;
  for (;;) {
    const b = await publisher.publishBatch();
    published += b.published;
    if (b.fetched === 0 || (b.published === 0 && b.itemFailed === 0 && b.setAside.length === 0)) break;
  }
  process.stdout.write(`${JSON.stringify({ pid: process.pid, published })}\n`);
  await nc.close();
  await db.destroy();
}

main().catch((err: unknown) => {
  process.stderr.write(`${String(err)}\n`);
  process.exit(1);
});
