import type { Middleware } from 'koa';
import { HttpError } from '../errors';
import { principalOf } from '../principal';

export interface TokenBucketOptions {
  perMinute: number;
  /** Bucket size: how many calls may arrive at once after a quiet period. */
  burst: number;
  now?: () => number;
}

export type TakeResult = { ok: true; remaining: number } | { ok: false; retryAfterSeconds: number };

/** A set of token buckets: `TokenBucketLimiter` in memory, `PgBucketLimiter` (the API's) in PostgreSQL. */
export interface RateLimiter {
  take(key: string): TakeResult | Promise<TakeResult>;
}

/**
 * One token bucket per key (an organisation), refilled continuously at `perMinute / 60` per
 * second up to `burst`. In memory: a restart empties it, so the API uses `PgBucketLimiter`
 * (pgRateLimit.ts) with the same arithmetic; this one is the reference its tests compare with.
 */
export class TokenBucketLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly perMs: number;
  private readonly now: () => number;

  constructor(private readonly opts: TokenBucketOptions) {
    this.perMs = opts.perMinute / 60_000;
    this.now = opts.now ?? Date.now;
  }

  take(key: string): TakeResult {
    const t = this.now();
    if (this.buckets.size >= MAX_BUCKETS && !this.buckets.has(key)) this.forgetRefilled(t);
    const b = this.buckets.get(key) ?? { tokens: this.opts.burst, at: t };
    b.tokens = Math.min(this.opts.burst, b.tokens + (t - b.at) * this.perMs);
    b.at = t;
    this.buckets.set(key, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return { ok: true, remaining: Math.floor(b.tokens) };
    }
    // Whole seconds, at least 1: Retry-After carries an integer (RFC 9110 §10.2.3).
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - b.tokens) / this.perMs / 1000)) };
  }

  /**
   * Keyed by client address or credential (the token endpoint), the buckets could grow without
   * bound: past MAX_BUCKETS, the full ones (a caller quiet long enough: forgetting it changes
   * nothing) are dropped; if none is, every bucket is (a flood of new keys wins a fresh burst, no more).
   */
  private forgetRefilled(t: number): void {
    for (const [k, b] of this.buckets) if (b.tokens + (t - b.at) * this.perMs >= this.opts.burst) this.buckets.delete(k);
    if (this.buckets.size >= MAX_BUCKETS) this.buckets.clear();
  }

  get size(): number {
    return this.buckets.size;
  }
}

/** Buckets one limiter keeps before it forgets the full ones. */
export const MAX_BUCKETS = 50_000;

/** 429 `throttled` with Retry-After once the caller's organisation has used its bucket. Runs after authentication. */
export function rateLimit(limiter: RateLimiter): Middleware {
  return async (ctx, next) => {
    const p = principalOf(ctx);
    if (!p) return next();
    const r = await limiter.take(p.organisation);
    if (!r.ok) {
      throw new HttpError('throttled', `Too many requests for organisation ${p.organisation}; retry in ${r.retryAfterSeconds} s.`, {}, { 'Retry-After': String(r.retryAfterSeconds) });
    }
    return next();
  };
}
