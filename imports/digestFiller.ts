import type { Knex } from 'knex';
import type { Logger } from '../lib/logger';
import { PeriodicPass } from '../lib/periodic';
import { FILL_BATCH, fillPendingDigests } from '../db/stores/accountDigests';

/**
 * Stores the digest of each account the create queued (db/stores/accountDigests.ts,
 * fillPendingDigests), off the import's path: one read-back for up to 500 accounts instead of one
 * per create (which cost each import ~6 ms of worker CPU and ~5 ms of PostgreSQL's, measured). Every
 * worker runs one; they share the queue. A pass runs every `intervalMs` and again at once while it
 * finds a full batch; a failed pass is logged and the queue kept for the next.
 */
export class DigestFiller {
  private readonly periodic: PeriodicPass;

  constructor(private readonly o: { db: Knex; log: Logger; intervalMs?: number; batch?: number }) {
    this.periodic = new PeriodicPass(() => this.drain(), o.intervalMs ?? 1000, (err) => o.log.warn({ err: String(err) }, 'digest filler pass failed'));
  }

  start(): void {
    this.periodic.start();
  }

  stop(): Promise<void> {
    return this.periodic.stop();
  }

  /** Passes until one finds less than a full batch (or the filler is stopped); the accounts taken. */
  async drain(): Promise<number> {
    const batch = this.o.batch ?? FILL_BATCH;
    let total = 0;
    for (;;) {
      const n = await fillPendingDigests(this.o.db, batch);
      total += n;
      if (n < batch || !this.periodic.running) return total;
    }
  }
}
