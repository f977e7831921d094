import type { Knex } from 'knex';

/**
 * The rate-limit buckets (rate_limit_buckets, migration 0025; http/middleware/pgRateLimit.ts): a
 * token bucket per (scope, key), refilled by PostgreSQL's clock.
 */

/**
 * One atomic upsert: refills the bucket by the time since its last take (up to `burst`), takes a
 * token if there is a whole one; `granted` says whether it did, `tokens` is what is left.
 */
export async function takeBucketToken(db: Knex, scope: string, key: string, burst: number, perSecond: number): Promise<{ tokens: number; granted: boolean }> {
  const refill = `LEAST(:burst::float8, b.tokens + GREATEST(0, EXTRACT(EPOCH FROM (now() - b.at))) * :perSecond::float8)`;
  const r = (await db.raw(
    `INSERT INTO rate_limit_buckets AS b (scope, key, tokens, at, granted)
     VALUES (:scope, :key, :burst::float8 - 1, now(), true)
     ON CONFLICT (scope, key) DO UPDATE SET
       tokens = CASE WHEN ${refill} >= 1 THEN ${refill} - 1 ELSE ${refill} END,
       granted = ${refill} >= 1,
       at = GREATEST(b.at, now())
     RETURNING tokens, granted`,
    { scope, key, burst, perSecond },
  )) as { rows: { tokens: number; granted: boolean }[] };
  return r.rows[0]!;
}

/** Deletes at most `limit` of the scope's buckets untouched for `idleSeconds`; how many. */
export async function pruneBuckets(db: Knex, scope: string, idleSeconds: number, limit: number): Promise<number> {
  const r = (await db.raw(
    `DELETE FROM rate_limit_buckets d USING (
       SELECT scope, key FROM rate_limit_buckets WHERE scope = ? AND at < now() - make_interval(secs => ?) LIMIT ?
     ) c WHERE d.scope = c.scope AND d.key = c.key`,
    [scope, idleSeconds, limit],
  )) as { rowCount: number };
  return r.rowCount;
}
