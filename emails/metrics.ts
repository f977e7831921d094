import type { Knex } from 'knex';
import { registerDatabaseGauge, type Metrics } from '../lib/metrics';
import { countEmailsByStatus } from './store';

/**
 * `data_import_customer_emails{status}`: customer e-mails by state (QUEUED, SENT, BOUNCED,
 * FAILED, SKIPPED), read from PostgreSQL when scraped, like the imports gauge.
 */
export function registerCustomerEmailGauge(metrics: Metrics, db: Knex): void {
  registerDatabaseGauge(metrics, { name: 'data_import_customer_emails', help: 'Customer e-mails by delivery state', label: 'status', read: () => countEmailsByStatus(db) });
}
