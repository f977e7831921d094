import type { Knex } from 'knex';

/**
 * The API's rate-limit buckets, out of the process (issue 47 items 3 and 5): kept in memory, a
 * restart of the API (or a crash a caller provokes) emptied them and gave every caller a fresh
 * burst. One row per bucket (`scope`: `org` for an organisation's data-import calls, `token` for
 * the token endpoint's address and credential buckets), taken by one atomic upsert per request
 * (http/middleware/pgRateLimit.ts). UNLOGGED: no WAL per request (the buckets are a few seconds of
 * state; a PostgreSQL crash empties them, an API restart does not). Rows of buckets full again are
 * pruned by the API (at most once a minute per limiter), so the table holds at most the keys seen
 * within one refill period.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE UNLOGGED TABLE rate_limit_buckets (
    scope text NOT NULL,
    key text NOT NULL,
    tokens double precision NOT NULL,
    at timestamptz NOT NULL,
    granted boolean NOT NULL,
    PRIMARY KEY (scope, key)
  )`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS rate_limit_buckets');
}
