import type { Knex } from 'knex';

/**
 * Retention's statements on the outbox (maintenance/retention.ts runs them): published rows older
 * than the retention are deleted in batches; rows still on the pending queue are kept and counted.
 */

/** The count a `SELECT count(*) AS n` answered. */
const count = (r: { rows: { n: string | number }[] }) => Number(r.rows[0]?.n ?? 0);
/** `now()` less a number of seconds, the one bound parameter (as db/retentionSql.ts's: events/ does not import db/). */
const AGO = 'now() - make_interval(secs => ?)';

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
