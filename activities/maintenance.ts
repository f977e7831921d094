import type { Knex } from 'knex';
import type { Logger } from '../lib/logger';
import type { Metrics } from '../lib/metrics';
import { RetentionReport, RetentionSettings, runRetention } from '../maintenance/retention';

/** The maintenance workflow's activity (the worker wires it; docs/spec/STYLE.md #3). */
export function createMaintenanceActivities(deps: { db: Knex; log: Logger; metrics?: Metrics }) {
  return {
    async runMaintenance(settings: RetentionSettings): Promise<RetentionReport> {
      const report = await runRetention(deps.db, settings, { metrics: deps.metrics });
      deps.log.info({ ...report }, 'maintenance run finished');
      return report;
    },
  };
}
