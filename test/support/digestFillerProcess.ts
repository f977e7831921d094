/**
 * One worker's digest filler as its own process, started with the worker's heap flags
 * (lib/nodeOptions.ts) by test/integration/digestPoisonCrash.test.ts: drains the queue of
 * DATABASE_URL with the attempt bound and lease of MAX_ATTEMPTS / LEASE_MS, then exits 0. An
 * account whose read-back does not fit the heap kills it (V8 OOM), as it kills a worker.
 */
import pino from 'pino';
import { createDb } from '../../db/knex';
import { DigestFiller } from '../../imports/digestFiller';

async function main() {
  const db = createDb(process.env.DATABASE_URL!, 2);
  const filler = new DigestFiller({
    db,
    log: pino({ level: 'silent' }),
    policy: { maxAttempts: Number(process.env.MAX_ATTEMPTS), leaseMs: Number(process.env.LEASE_MS) },
  });
  const taken = await filler.drain();
  process.stdout.write(`${JSON.stringify({ pid: process.pid, taken })}\n`);
  await db.destroy();
}

main().catch((err: unknown) => {
  process.stderr.write(`${String(err)}\n`);
  process.exit(1);
});
