import type { Knex } from 'knex';

/**
 * The statements of retention (maintenance/retention.ts): each counts what is due, or prunes one
 * batch of it in one short statement and returns how many rows it pruned. Rows locked by someone
 * else are skipped (SKIP LOCKED) and taken the next time.
 */

const count = (r: { rows: { n: string | number }[] }) => Number(r.rows[0]?.n ?? 0);
/** `now()` less a number of seconds, the one bound parameter. */
const AGO = 'now() - make_interval(secs => ?)';

const REFRESH_TOKEN_DUE = `expires_at < ${AGO} OR revoked_at < ${AGO}`;

/** Refresh tokens expired or revoked more than `graceSeconds` ago. */
export async function refreshTokensDue(db: Knex, graceSeconds: number): Promise<number> {
  return count(await db.raw(`SELECT count(*) AS n FROM refresh_tokens WHERE ${REFRESH_TOKEN_DUE}`, [graceSeconds, graceSeconds]));
}

/** Key ranges (first key, last key) a batch's candidates stay out of: retention's set-aside batches. */
export interface KeyRange {
  lo: string;
  hi: string;
}

/** SQL: `key` is in none of the ranges (two array parameters: first keys, last keys). */
const outside = (key: string, type: string) => `NOT EXISTS (SELECT 1 FROM unnest(?::${type}[], ?::${type}[]) r(lo, hi) WHERE ${key} BETWEEN r.lo AND r.hi)`;
const rangeParams = (ranges: KeyRange[]) => [ranges.map((r) => r.lo), ranges.map((r) => r.hi)];

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

// Matches the partial index import_processes_payload_held_idx (migration 0010).
const PAYLOAD_DUE = `status = 'PROCESSED' AND payload IS NOT NULL AND modified_at < ${AGO}`;

/** PROCESSED imports unchanged for `retentionSeconds` that still hold their payload. */
export async function payloadsDue(db: Knex, retentionSeconds: number): Promise<number> {
  return count(await db.raw(`SELECT count(*) AS n FROM import_processes WHERE ${PAYLOAD_DUE}`, [retentionSeconds]));
}

/** Up to `limit` ids of them after `after` (null: from the first) in id order (about oldest first), outside `skip`: one batch's keys. */
export async function payloadCandidates(db: Knex, retentionSeconds: number, after: string | null, skip: KeyRange[], limit: number): Promise<string[]> {
  const rows = (await db.raw(
    `SELECT id FROM import_processes WHERE ${PAYLOAD_DUE} AND (?::bigint IS NULL OR id > ?::bigint) AND ${outside('id', 'bigint')} ORDER BY id LIMIT ?`,
    [retentionSeconds, after, after, ...rangeParams(skip), limit],
  )).rows as { id: string | number }[];
  return rows.map((r) => String(r.id));
}

/** Drops the payload of these imports, if still due; modified_at is left alone (the status record's, and dropping the payload is not a change of the import). */
export async function prunePayloadBatch(db: Knex, retentionSeconds: number, ids: string[]): Promise<number> {
  return count(
    await db.raw(
      `WITH c AS (SELECT id FROM import_processes WHERE id = ANY(?::bigint[]) AND ${PAYLOAD_DUE} FOR UPDATE SKIP LOCKED),
            u AS (UPDATE import_processes i SET payload = NULL, payload_pruned_at = now() FROM c WHERE i.id = c.id RETURNING 1)
       SELECT count(*) AS n FROM u`,
      [ids, retentionSeconds],
    ),
  );
}

/** Up to `limit` outbox rows after `afterSeq` in seq order: each older than `retentionSeconds` or not, still pending or not. */
export async function outboxPage(db: Knex, retentionSeconds: number, afterSeq: string, limit: number): Promise<{ seq: string; old: boolean; pending: boolean }[]> {
  return (
    await db.raw(
      `SELECT o.seq, o.created_at < ${AGO} AS old, p.seq IS NOT NULL AS pending
         FROM outbox o LEFT JOIN outbox_pending p ON p.seq = o.seq
        WHERE o.seq > ? ORDER BY o.seq LIMIT ?`,
      [retentionSeconds, afterSeq, limit],
    )
  ).rows;
}

/** Deletes these outbox rows, but any still on the pending queue. */
export async function deletePublishedOutboxRows(db: Knex, seqs: string[]): Promise<number> {
  return count(
    await db.raw(
      `WITH d AS (DELETE FROM outbox o WHERE o.seq = ANY(?::bigint[])
                    AND NOT EXISTS (SELECT 1 FROM outbox_pending p WHERE p.seq = o.seq) RETURNING 1)
       SELECT count(*) AS n FROM d`,
      [seqs],
    ),
  );
}

/** Published outbox rows after `afterSeq` older than `retentionSeconds`. */
export async function outboxDueAfter(db: Knex, retentionSeconds: number, afterSeq: string): Promise<number> {
  return count(
    await db.raw(
      `SELECT count(*) AS n FROM outbox o
        WHERE o.seq > ? AND o.created_at < ${AGO} AND NOT EXISTS (SELECT 1 FROM outbox_pending p WHERE p.seq = o.seq)`,
      [afterSeq, retentionSeconds],
    ),
  );
}

/** Outbox rows older than `retentionSeconds` still on the pending queue (JetStream has not acknowledged them). */
export async function outboxHeldUnpublished(db: Knex, retentionSeconds: number): Promise<number> {
  return count(await db.raw(`SELECT count(*) AS n FROM outbox_pending p JOIN outbox o ON o.seq = p.seq WHERE o.created_at < ${AGO}`, [retentionSeconds]));
}
