import { proxyActivities, setWorkflowOptions } from '@temporalio/workflow';
import type { createMaintenanceActivities } from '../activities/maintenance';
import type { RetentionReport, RetentionSettings } from '../maintenance/retention';

export type MaintenanceInput = RetentionSettings;
export type MaintenanceResult = RetentionReport;

type Activities = ReturnType<typeof createMaintenanceActivities>;

// A regular activity (not local): a large backlog may take minutes; it heartbeats nothing and is
// idempotent, so a retry after a worker crash simply continues where the rows say.
const { runMaintenance } = proxyActivities<Activities>({
  startToCloseTimeout: '30m',
  retry: { initialInterval: '10s', backoffCoefficient: 2, maximumInterval: '5m', maximumAttempts: 5 },
});

/**
 * Retention on a schedule (worker/maintenanceSchedule.ts creates the Temporal Schedule that starts
 * it): prunes published outbox events and the payloads of PROCESSED imports past their retention.
 */
export async function maintenance(input: MaintenanceInput): Promise<MaintenanceResult> {
  return await runMaintenance(input);
}

/*
 * Worker Versioning (docs/deploys.md): AUTO_UPGRADE, like registrationFlows: one activity call,
 * started by the schedule every hour; a run in progress continues on the current build.
 */
setWorkflowOptions({ versioningBehavior: 'AUTO_UPGRADE' }, maintenance);
