/** Library API of `data-import migrate` (the CLI, benchmarks and tests call it in-process). */
export { runMigration, allSucceeded, formatSummary, MigrationError, DEFAULT_API_URL, DEFAULT_CONCURRENCY, DEFAULT_POLL_INTERVAL_MS, DEFAULT_MAX_RETRIES, DEFAULT_OUTAGE_TIMEOUT_MS } from './run';
export { ApiUnavailableError } from './availability';
export { CSV_COLUMNS } from './report';
export { TokenSource, AuthError } from './auth';
export { retryAfterMs, backoffMs } from './backoff';
export type { MigrationOptions, MigrationSummary, MigrationMode, AccountStatus, AccountRecord, ErrorItem } from './types';
