import type { Knex } from 'knex';
import type { TakeResult, TokenBucketOptions } from './rateLimit';
import { pruneBuckets, takeBucketToken } from '../../db/stores/rateLimitBuckets';

/** How often one limiter prunes the buckets that are full again. */
const PRUNE_EVERY_MS = 60_000;
/** Rows one prune deletes at most (the next one takes the rest). */
const PRUNE_BATCH = 10_000;

/**
 * The token buckets of `TokenBucketLimiter`, held in PostgreSQL (table rate_limit_buckets,
 * migration 0025) so that a restart or a crash of the API cannot empty them: each `take` is one
 * atomic upsert that refills the bucket by the time passed (PostgreSQL's clock, so every replica
 * refills alike) and takes a token if there is one. Concurrent takes of one bucket serialise on its
 * row; replicas share the buckets, so an organisation's limit is `perMinute` in all (no longer
 * `perMinute × replicas`).
 *
 * Cost (docs/security.md "Rate-limit buckets"): one single-row upsert on an UNLOGGED table per
 * limited request, 0.48–0.61 ms on the local PostgreSQL (a bare round trip: 0.28 ms); pruning is one
 * DELETE a minute.
 */
export class PgBucketLimiter {
  private readonly scope: string;
  private readonly perSecond: number;
  private readonly fullAfterSeconds: number;
  private lastPrune = 0;

  constructor(
    private readonly db: Knex,
    scope: string,
    private readonly opts: Omit<TokenBucketOptions, 'now'>,
  ) {
    // A bucket of another limit is another bucket: a changed RATE_LIMIT_* starts afresh.
    this.scope = `${scope}:${opts.perMinute}:${opts.burst}`;
    this.perSecond = opts.perMinute / 60;
    this.fullAfterSeconds = opts.burst / this.perSecond;
  }

  async take(key: string): Promise<TakeResult> {
    const row = await takeBucketToken(this.db, this.scope, key, this.opts.burst, this.perSecond);
    this.maybePrune();
    if (row.granted) return { ok: true, remaining: Math.floor(row.tokens) };
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - row.tokens) / this.perSecond)) };
  }

  /** Deletes (in the background) this scope's buckets untouched for a whole refill period: full again, forgetting them changes nothing. */
  private maybePrune(): void {
    const t = Date.now();
    if (t - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = t;
    void this.prune().catch(() => undefined);
  }

  /** One prune now; how many buckets it deleted. */
  prune(): Promise<number> {
    return pruneBuckets(this.db, this.scope, this.fullAfterSeconds, PRUNE_BATCH);
  }
}
