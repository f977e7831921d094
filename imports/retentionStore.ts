import type { Knex } from 'knex';
import { AGO, count, type KeyRange, outside, rangeParams } from '../db/retentionSql';

/**
 * Retention's statements on imports/'s `import_processes`, the payloads of processed imports
 * (maintenance/retention.ts runs them, db/retentionSql.ts their shared SQL): each counts what is
 * due, or prunes one batch of it in one short statement and returns how many rows it pruned. Rows locked by someone else are skipped (SKIP LOCKED) and taken
 * the next time.
 */

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
