import type { Knex } from 'knex';
import { NativeConnection } from '@temporalio/worker';
import type { Client } from '@temporalio/client';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/logger';
import type { Metrics } from '../lib/metrics';
import type { ReferenceDataCache } from '../account/referenceDataCache';
import type { EagerStartPolicy } from '../imports/startWorkflow';
import { temporalClient, temporalConnectionOptions } from '../lib/temporal';
import { PeriodicPass } from '../lib/periodic';
import { describeDeployment } from '../deploys/versions';
import { createImportWorker } from '../worker/importWorker';

/**
 * How often the API reads the deployment's routing (one DescribeWorkerDeployment a second per API
 * process), and how old a reading may be before eager start pauses.
 */
export const ROUTING_CHECK_MS = 1_000;
export const ROUTING_STALE_MS = 5_000;

export interface EagerStart {
  /** The client over the hosted worker's connection: an eager start must go through it. */
  client: Client;
  policy: EagerStartPolicy;
  /** Whether starts ask for eager start now (this build current, no ramp, worker running). */
  allowed(): boolean;
  /** Stops asking, lets the imports the worker runs finish (up to its shutdown grace time), closes. */
  shutdown(): Promise<void>;
}

/**
 * API_EAGER_START (docs/operations.md "Eager start"): the API process hosts a worker of the task
 * queue — the worker processes' code, build and version (worker/importWorker.ts) — and starts
 * imports through that worker's connection with `requestEagerStart`. Temporal stores the
 * execution, then hands its first workflow task back with the start's answer to this worker,
 * instead of queueing it for a poller: one frontend request and a matching round trip fewer per
 * import. The create still answers 201 only after the start returned (the execution is stored);
 * a process that dies holding an eager task loses nothing: the task times out (the workflow task
 * timeout, 10 s) and another worker of the task queue runs it.
 *
 * Temporal (1.32) accepts an eager start whatever build is current: the SDK sends the worker's
 * version and the server pins the import to it (docs/deploys.md "Limits and notes"). So starts ask
 * for it only while this build is the deployment's current version and no ramp is set, read every
 * ROUTING_CHECK_MS; a reading older than ROUTING_STALE_MS, or a worker not running, and starts go
 * through the task queue as without the setting. Every start that asked is counted by outcome in
 * data_import_eager_starts_total: `fallback` (no free workflow-task slot: API_EAGER_WORKFLOW_TASKS)
 * is never silent.
 */
export async function startEagerStart(o: { config: Config; log: Logger; metrics: Metrics; db: Knex; referenceData: ReferenceDataCache }): Promise<EagerStart> {
  const { config, log, metrics } = o;
  const t = config.temporal;
  const connection = await NativeConnection.connect(temporalConnectionOptions(t));
  const hosted = await createImportWorker({ ...o, connection, maxConcurrentWorkflowTasks: config.eagerStart.workflowTasks });
  const { worker, version } = hosted;
  const client = temporalClient(t, connection);

  let routingOkAt = 0;
  let lastState: string | null = null;
  const checkRouting = async () => {
    const d = await client.withDeadline(Date.now() + ROUTING_STALE_MS - ROUTING_CHECK_MS, () => describeDeployment(client, version.deploymentName));
    const ok = d !== null && d.currentBuildId === version.buildId && d.ramping === null;
    routingOkAt = ok ? Date.now() : 0;
    const state = ok ? 'current' : `not current (current ${d?.currentBuildId ?? 'none'}${d?.ramping ? `, ramping ${d.ramping.buildId} ${d.ramping.percentage} %` : ''})`;
    if (state !== lastState) {
      log.info({ deployment: version.deploymentName, buildId: version.buildId, eagerStart: ok }, ok ? 'eager start on: this build is the current version' : `eager start paused: this build is ${state}`);
      lastState = state;
    }
  };
  const watcher = new PeriodicPass(checkRouting, ROUTING_CHECK_MS, (err) => {
    if (lastState !== 'unknown') log.warn({ err: String(err) }, 'eager start paused: could not read the deployment routing');
    lastState = 'unknown';
  });
  await checkRouting().catch((err: unknown) => log.warn({ err: String(err) }, 'could not read the deployment routing: eager start waits for it'));
  watcher.start();

  const running: Promise<void> = worker.run();
  let stopping = false;
  let lastFallbackLog = 0;
  running.catch((err: unknown) => log.error({ err: String(err) }, 'the API\'s eager-start worker stopped'));
  const allowed = () => !stopping && worker.getState() === 'RUNNING' && Date.now() - routingOkAt < ROUTING_STALE_MS;
  log.info({ taskQueue: t.taskQueue, buildId: version.buildId, workflowTasks: config.eagerStart.workflowTasks }, 'eager start: this process hosts a worker of the task queue');

  return {
    client,
    allowed,
    policy: {
      request: allowed,
      started: (eagerly) => {
        metrics.eagerStarts.inc({ outcome: eagerly ? 'eager' : 'fallback' });
        // Logged too, at most once a minute: the count alone would be easy to miss.
        if (!eagerly && Date.now() - lastFallbackLog > 60_000) {
          lastFallbackLog = Date.now();
          log.warn({ workflowTasks: config.eagerStart.workflowTasks }, 'an eager start fell back to the task queue (no free workflow-task slot in this process, or the server declined): raise API_EAGER_WORKFLOW_TASKS if it goes on (data_import_eager_starts_total)');
        }
      },
    },
    shutdown: async () => {
      stopping = true;
      await watcher.stop();
      // The Temporal runtime may have begun the worker's shutdown on the same signal.
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running.catch(() => undefined);
      hosted.close();
      await connection.close().catch(() => undefined);
    },
  };
}

