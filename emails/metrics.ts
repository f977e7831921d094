import client from 'prom-client';
import type { Knex } from 'knex';
import type { Metrics } from '../lib/metrics';
import { countEmailsByStatus } from './store';

/**
 * `data_import_customer_emails{status}`: customer e-mails by state (QUEUED, SENT, BOUNCED,
 * FAILED, SKIPPED), read from PostgreSQL when scraped, like the imports gauge.
 */
export function registerCustomerEmailGauge(metrics: Metrics, db: Knex): void {
  new client.Gauge({
    name: 'data_import_customer_emails',
    help: 'Customer e-mails by delivery state',
    labelNames: ['status'] as const,
    registers: [metrics.registry],
    async collect() {
      try {
        const counts = await countEmailsByStatus(db);
        this.reset();
        for (const [status, n] of Object.entries(counts)) this.set({ status }, n);
      } catch {
        /* database unreachable: /readyz reports it; keep the scrape alive */
      }
    },
  });
}
