import { NativeConnection, Worker } from '@temporalio/worker';
import type { Knex } from 'knex';
import type { Logger } from '../lib/logger';
import type { Metrics } from '../lib/metrics';
import { createActivities } from '../imports/activities';
import { buildWorkerActivities } from './extraActivities';
import type { AccountValidator } from '../account/validator';
import type { EmailActivityDeps } from '../emails/activities';

export interface WorkerDeps {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  db: Knex;
  validator: AccountValidator;
  subjectPrefix: string;
  log: Logger;
  metrics?: Metrics;
  maxConcurrentActivities?: number;
  maxConcurrentWorkflowTasks?: number;
  maxCachedWorkflows?: number;
  /** A prebuilt workflow bundle (faster start); else the workflows are bundled from source. */
  workflowBundlePath?: string;
  /** The mail relay and templates of customer e-mails (emails/mailer.ts builds them from the config). */
  mail?: EmailActivityDeps['mail'];
  /** Tests wrap activities to pause or crash them at a chosen point. */
  wrapActivities?: <A extends Record<string, unknown>>(activities: A) => A;
}

/** The only place that wires activities to their dependencies (STYLE.md #3). */
export async function createWorker(d: WorkerDeps): Promise<Worker> {
  const all = {
    ...createActivities({ db: d.db, validator: d.validator, subjectPrefix: d.subjectPrefix, log: d.log, metrics: d.metrics }),
    ...buildWorkerActivities(d),
  };
  const activities = d.wrapActivities ? d.wrapActivities(all) : all;
  return Worker.create({
    connection: d.connection,
    namespace: d.namespace,
    taskQueue: d.taskQueue,
    ...(d.workflowBundlePath ? { workflowBundle: { codePath: d.workflowBundlePath } } : { workflowsPath: require.resolve('../workflows') }),
    activities,
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
