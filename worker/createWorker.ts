import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../imports/activities';
import type { ActivityDeps as ImportActivityDeps } from '../imports/activities/context';
import { buildWorkerActivities } from './extraActivities';
import type { EmailActivityDeps } from '../emails/activities';

/** What the activities are built from: the import's dependencies, and the mail relay of e-mails. */
export interface ActivityDeps extends Omit<ImportActivityDeps, 'now'> {
  /** The mail relay and templates of customer e-mails (emails/mailer.ts builds them from the config). */
  mail?: EmailActivityDeps['mail'];
}

/** Every activity the worker registers: the import steps and those of the other workflows. */
export type WorkerActivities = ReturnType<typeof createActivities> & ReturnType<typeof buildWorkerActivities>;

/** The only place that wires activities to their dependencies (STYLE.md #3). */
export function createWorkerActivities(d: ActivityDeps): WorkerActivities {
  return {
    ...createActivities({ db: d.db, validator: d.validator, subjectPrefix: d.subjectPrefix, log: d.log, metrics: d.metrics, payloadBudget: d.payloadBudget }),
    ...buildWorkerActivities(d),
  };
}

export interface WorkerDeps {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  /** `createWorkerActivities(...)`: the worker registers exactly this object. */
  activities: WorkerActivities;
  maxConcurrentActivities?: number;
  maxConcurrentWorkflowTasks?: number;
  maxCachedWorkflows?: number;
  /** A prebuilt workflow bundle (faster start); else the workflows are bundled from source. */
  workflowBundlePath?: string;
}

/** The Temporal worker of the task queue, over the activities it is given. */
export async function createWorker(d: WorkerDeps): Promise<Worker> {
  return Worker.create({
    connection: d.connection,
    namespace: d.namespace,
    taskQueue: d.taskQueue,
    ...(d.workflowBundlePath ? { workflowBundle: { codePath: d.workflowBundlePath } } : { workflowsPath: require.resolve('../workflows') }),
    activities: d.activities,
    maxConcurrentActivityTaskExecutions: d.maxConcurrentActivities ?? 32,
    // The import steps are local activities: the same bound applies to them.
    maxConcurrentLocalActivityExecutions: d.maxConcurrentActivities ?? 32,
    maxConcurrentWorkflowTaskExecutions: d.maxConcurrentWorkflowTasks ?? 32,
    shutdownGraceTime: '30s',
    // Imports finish in one or two workflow tasks: a small sticky cache holds what is running
    // and keeps the worker's memory flat (README "Scaling", bench/NOTES.md).
    maxCachedWorkflows: d.maxCachedWorkflows ?? 100,
  });
}
