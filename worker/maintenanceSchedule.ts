import { Client, ScheduleAlreadyRunning, ScheduleNotFoundError, ScheduleOptionsStartWorkflowAction } from '@temporalio/client';
import type { Logger } from '../lib/logger';
import type { RetentionSettings } from '../maintenance/retention';
import type { maintenance } from '../workflows/maintenance';

/** One schedule per namespace and task queue; its runs are `maintenance-<time>` workflows. */
export const maintenanceScheduleId = (taskQueue: string) => `data-import-maintenance:${taskQueue}`;

/**
 * Creates the maintenance schedule, or brings an existing one to this worker's settings
 * (interval, retention): every worker runs this at start, so it is idempotent and the last
 * configuration started wins. `intervalMinutes` 0 deletes the schedule.
 */
export async function ensureMaintenanceSchedule(
  client: Client,
  o: { taskQueue: string; intervalMinutes: number; settings: RetentionSettings; log: Logger },
): Promise<'created' | 'updated' | 'deleted' | 'absent'> {
  const scheduleId = maintenanceScheduleId(o.taskQueue);
  const handle = client.schedule.getHandle(scheduleId);
  if (o.intervalMinutes === 0) {
    try {
      await handle.delete();
      o.log.info({ scheduleId }, 'maintenance schedule deleted (MAINTENANCE_INTERVAL_MINUTES=0)');
      return 'deleted';
    } catch (err) {
      if (err instanceof ScheduleNotFoundError) return 'absent';
      throw err;
    }
  }
  const spec = { intervals: [{ every: `${o.intervalMinutes}m` as const }] };
  const action: ScheduleOptionsStartWorkflowAction<typeof maintenance> = {
    type: 'startWorkflow',
    workflowType: 'maintenance',
    workflowId: `data-import-maintenance:${o.taskQueue}`,
    taskQueue: o.taskQueue,
    args: [o.settings],
  };
  // Skip a run while the previous one is still going: two passes would only contend for rows.
  const policies = { overlap: 'SKIP' as const, catchupWindow: '1h' as const };
  try {
    await client.schedule.create({ scheduleId, spec, action, policies });
    o.log.info({ scheduleId, everyMinutes: o.intervalMinutes }, 'maintenance schedule created');
    return 'created';
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
  await handle.update((previous) => ({ ...previous, spec, action, policies }));
  o.log.info({ scheduleId, everyMinutes: o.intervalMinutes }, 'maintenance schedule updated');
  return 'updated';
}
