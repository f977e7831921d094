/** Library API of `data-import migrate` (the CLI, benchmarks and tests call it in-process). */
export { runMigration, allSucceeded, formatSummary, MigrationError, DEFAULT_CONCURRENCY, DEFAULT_POLL_INTERVAL_MS, DEFAULT_MAX_RETRIES, DEFAULT_OUTAGE_TIMEOUT_MS } from './run';
export { CSV_COLUMNS } from './report';
export type { MigrationOptions, MigrationSummary, MigrationMode, AccountStatus, AccountRecord, ErrorItem } from './types';
