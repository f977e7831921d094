import type { Knex } from 'knex';

/**
 * Generated import processes written straight into PostgreSQL (one INSERT ... SELECT
 * generate_series, no API, no workflow): every other one PROCESSED with its account row (number
 * `G-…`, so it never collides with a real `A-…` number), the rest PENDING. External numbers are
 * `<prefix>-<n>`, n from 1. For listing tests and the listing benchmark.
 */
export async function insertGeneratedProcesses(db: Knex, supplier: string, count: number, prefix = 'GEN'): Promise<void> {
  await db.raw(
    `INSERT INTO import_processes (import_supplier, external_account_number, status, kraken_identifier, payload,
       schedule_window_start, schedule_window_end, workflow_id, latest_event, created_at, modified_at)
     SELECT :supplier, :prefix || '-' || i,
       CASE WHEN i % 2 = 0 THEN 'PROCESSED' ELSE 'PENDING' END,
       CASE WHEN i % 2 = 0 THEN 'G-' || :prefix || '-' || i END,
       '{}'::jsonb, now(), now(), 'account-import:' || :supplier || ':' || :prefix || '-' || i,
       '{"event": "EVENT_ACCOUNT_IMPORT_PROCESS_CREATED", "data": null, "occurred_at": "2026-01-01T00:00:00+00:00"}'::jsonb,
       now(), now()
     FROM generate_series(1, :count) AS i`,
    { supplier, prefix, count },
  );
  await db.raw(
    `INSERT INTO accounts (number, import_supplier, external_account_number, created_at)
     SELECT 'G-' || :prefix || '-' || i, :supplier, :prefix || '-' || i, timestamptz '2026-01-01T12:00:00Z' + make_interval(secs => i)
     FROM generate_series(2, :count, 2) AS i`,
    { supplier, prefix, count },
  );
}
