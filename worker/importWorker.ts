import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import type { NativeConnection, Worker } from '@temporalio/worker';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/logger';
import type { Metrics } from '../lib/metrics';
import type { ReferenceDataCache } from '../account/referenceDataCache';
import { databaseValidator } from '../suppliers/databaseValidator';
import { activeTracing } from '../lib/tracing';
import { PayloadBudget } from '../lib/payloadBudget';
import { createMailer } from '../emails/mailer';
import { currentBuild } from '../lib/buildInfo';
import { createWorker, createWorkerActivities, workflowBundlePaths } from './createWorker';

export interface ImportWorker {
  worker: Worker;
  /** The Worker Deployment Version it registers: this build's (docs/deploys.md). */
  version: { deploymentName: string; buildId: string };
  /** Closes what the worker's activities hold besides the database (the mail relay's connections). */
  close(): void;
}

/**
 * The worker of the task queue as a process hosts it: every workflow and activity, this build's
 * version, the prebuilt workflow bundle (the traced one with tracing on), as the worker process
 * (worker/main.ts) runs it.
 */
export async function createImportWorker(o: {
  config: Config;
  log: Logger;
  metrics: Metrics;
  db: Knex;
  referenceData: ReferenceDataCache;
  connection: NativeConnection;
  maxConcurrentWorkflowTasks: number;
  /** The watchdog's view of PostgreSQL (worker/main.ts). */
  reachesDatabase?: () => boolean;
}): Promise<ImportWorker> {
  const { config } = o;
  const build = currentBuild();
  const version = { deploymentName: config.temporal.deploymentName, buildId: build.buildId };
  // The traced bundle carries the OpenTelemetry workflow interceptors; with tracing off the plain
  // one runs, so an untraced worker pays nothing for them.
  const tracing = activeTracing() ?? undefined;
  const bundles = workflowBundlePaths(path.join(__dirname, '..'));
  const bundle = tracing ? bundles.traced : bundles.plain;
  const mail = createMailer(config.email);
  const worker = await createWorker({
    connection: o.connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    activities: createWorkerActivities({
      db: o.db,
      validator: databaseValidator({ db: o.db, cache: o.referenceData }),
      subjectPrefix: config.nats.subjectPrefix,
      log: o.log,
      metrics: o.metrics,
      mail,
      payloadBudget: new PayloadBudget(config.worker.payloadBudgetBytes),
      json: config.http.json,
      reachesDatabase: o.reachesDatabase,
    }),
    maxConcurrentActivities: config.worker.maxConcurrentActivities,
    maxConcurrentWorkflowTasks: o.maxConcurrentWorkflowTasks,
    workflowBundlePath: fs.existsSync(bundle) ? bundle : undefined,
    version,
    tracing,
  });
  return { worker, version, close: () => mail.transport.close() };
}
