// SQL text shared by the features' retention statements (maintenance/retention.ts runs them;
// each table's owner holds its own: auth/retentionStore.ts, imports/retentionStore.ts,
// events/outboxRetention.ts). No table of its own.

/** The count a `SELECT count(*) AS n` answered. */
export const count = (r: { rows: { n: string | number }[] }) => Number(r.rows[0]?.n ?? 0);
/** `now()` less a number of seconds, the one bound parameter. */
export const AGO = 'now() - make_interval(secs => ?)';

/** Key ranges (first key, last key) a batch's candidates stay out of: retention's set-aside batches. */
export interface KeyRange {
  lo: string;
  hi: string;
}

/** SQL: `key` is in none of the ranges (two array parameters: first keys, last keys). */
export const outside = (key: string, type: string) => `NOT EXISTS (SELECT 1 FROM unnest(?::${type}[], ?::${type}[]) r(lo, hi) WHERE ${key} BETWEEN r.lo AND r.hi)`;
export const rangeParams = (ranges: KeyRange[]) => [ranges.map((r) => r.lo), ranges.map((r) => r.hi)];
