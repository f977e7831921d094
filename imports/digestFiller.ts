import type { Knex } from 'knex';
import type { Logger } from '../lib/logger';
import { PeriodicPass } from '../lib/periodic';
import type { Metrics } from '../lib/metrics';
import { FILL_BATCH, fillPass } from '../db/stores/accountDigests';
import { DIGEST_QUEUE_POLICY, type QueuePolicy } from '../db/stores/digestQueue';

/**
 * Stores the digest of each account the create queued (db/stores/accountDigests.ts,
 * fillPendingDigests), off the import's path: one read-back for up to 500 accounts instead of one
 * per create (which cost each import ~6 ms of worker CPU and ~5 ms of PostgreSQL's, measured). Every
 * worker runs one; they share the queue. A pass runs every `intervalMs` and again at once while it
 * finds a full batch; a failed pass is logged and the queue kept for the next. An account it cannot
 * handle (an error, or a read-back that kills the process) is retried `policy.maxAttempts` times
 * and then set aside with its reason (fillPass, db/stores/digestQueue.ts); every other account goes on.
 */
export class DigestFiller {
  private readonly periodic: PeriodicPass;

  constructor(
    private readonly o: {
      db: Knex;
      log: Logger;
      metrics?: Pick<Metrics, 'queueItemFailures' | 'queueItemsSetAside'>;
      intervalMs?: number;
      batch?: number;
      policy?: QueuePolicy;
    },
  ) {
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
      const pass = await fillPass(this.o.db, batch, this.o.policy ?? DIGEST_QUEUE_POLICY);
      if (pass.failed > 0) this.o.metrics?.queueItemFailures.inc({ queue: 'digest' }, pass.failed);
      if (pass.setAside.length > 0) {
        this.o.metrics?.queueItemsSetAside.inc({ queue: 'digest' }, pass.setAside.length);
        this.o.log.error({ accountIds: pass.setAside }, 'digest filler set accounts aside after their last attempt (data-import set-aside list)');
      }
      total += pass.taken;
      if (pass.taken < batch || !this.periodic.running) return total;
    }
  }
}
