import type { Knex } from 'knex';

/**
 * The per-supplier sending rate, held across every worker by PostgreSQL (docs/customer-emails.md
 * "Rate"): one row per supplier keeps the last slot handed out; reserving the next one is a single
 * upsert, which takes the row lock, so concurrent senders on any worker queue up behind it and
 * get slots exactly 1/rate seconds apart. Times come from the database clock (clock_timestamp),
 * so skew between workers does not matter. Returns how long the caller waits for its slot (ms).
 *
 * A slot reserved by a sender that dies is simply unused: the rate can only come out lower,
 * never higher.
 */
export async function reserveSendingSlot(db: Knex, importSupplier: string, perSecond: number, notBeforeMs = 0): Promise<number> {
  // notBeforeMs: the slot is at least this far ahead (a sender that needs that long to get ready
  // for it, emails/delivery.ts); the slots stay 1/rate apart either way.
  const r = await db.raw(
    `INSERT INTO customer_email_rate AS r (import_supplier, last_slot_at) VALUES (?, clock_timestamp() + make_interval(secs => ?::float8))
     ON CONFLICT (import_supplier) DO UPDATE
       SET last_slot_at = greatest(r.last_slot_at + make_interval(secs => ?::float8), clock_timestamp() + make_interval(secs => ?::float8))
     RETURNING extract(epoch FROM last_slot_at - clock_timestamp()) * 1000 AS wait_ms`,
    [importSupplier, notBeforeMs / 1000, 1 / perSecond, notBeforeMs / 1000],
  );
  return Math.max(0, Math.ceil(Number((r.rows as { wait_ms: string }[])[0]!.wait_ms)));
}
