import type { Knex } from 'knex';
import { AGO, count, type KeyRange, outside, rangeParams } from '../db/retentionSql';

/**
 * Retention's statements on auth/'s `refresh_tokens` (maintenance/retention.ts runs them,
 * db/retentionSql.ts their shared SQL): each counts what is due, or prunes one batch of it in one
 * short statement and returns how many rows it pruned. Rows locked by someone else are skipped (SKIP LOCKED) and taken
 * the next time.
 */

const REFRESH_TOKEN_DUE = `expires_at < ${AGO} OR revoked_at < ${AGO}`;

/** Refresh tokens expired or revoked more than `graceSeconds` ago. */
export async function refreshTokensDue(db: Knex, graceSeconds: number): Promise<number> {
  return count(await db.raw(`SELECT count(*) AS n FROM refresh_tokens WHERE ${REFRESH_TOKEN_DUE}`, [graceSeconds, graceSeconds]));
}

/** Up to `limit` due refresh tokens after `after` (null: from the first) in jti order, outside `skip`: one batch's keys. */
export async function refreshTokenCandidates(db: Knex, graceSeconds: number, after: string | null, skip: KeyRange[], limit: number): Promise<string[]> {
  const rows = (await db.raw(
    `SELECT jti FROM refresh_tokens WHERE (${REFRESH_TOKEN_DUE}) AND (?::uuid IS NULL OR jti > ?::uuid) AND ${outside('jti', 'uuid')} ORDER BY jti LIMIT ?`,
    [graceSeconds, graceSeconds, after, after, ...rangeParams(skip), limit],
  )).rows as { jti: string }[];
  return rows.map((r) => r.jti);
}

/** Deletes these refresh tokens, if still due (rows locked by someone else are skipped). */
export async function deleteRefreshTokens(db: Knex, graceSeconds: number, jtis: string[]): Promise<number> {
  return count(
    await db.raw(
      `WITH c AS (SELECT jti FROM refresh_tokens WHERE jti = ANY(?::uuid[]) AND (${REFRESH_TOKEN_DUE}) FOR UPDATE SKIP LOCKED),
            d AS (DELETE FROM refresh_tokens r USING c WHERE r.jti = c.jti RETURNING 1)
       SELECT count(*) AS n FROM d`,
      [jtis, graceSeconds, graceSeconds],
    ),
  );
}
