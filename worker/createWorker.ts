import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import type { Tracing } from '../lib/tracing';
import { TRACED_BUNDLE_PRELOAD_MODULES, WORKFLOW_TRACING_INTERCEPTORS } from './workflowBundles';

export { workflowBundlePaths } from './workflowBundles';
import { createActivities } from '../activities/imports';
import type { ActivityDeps as ImportActivityDeps } from '../activities/imports/context';
import { createEmailActivities, type EmailActivityDeps } from '../activities/emails/customerEmails';
import { createRegistrationActivities } from '../activities/registration';
import { createMaintenanceActivities } from '../activities/maintenance';

/** What the activities are built from: the import's dependencies, and the mail relay of e-mails. */
export interface ActivityDeps extends Omit<ImportActivityDeps, 'now'> {
  /** The mail relay and templates of customer e-mails (emails/mailer.ts builds them from the config). */
  mail?: EmailActivityDeps['mail'];
  /** The worker's watchdog's view of PostgreSQL: the e-mail delivery heartbeats only while it holds. */
  reachesDatabase?: EmailActivityDeps['reachesDatabase'];
}

/** Every activity the worker registers: the import steps, those of the other workflows, the customer e-mails. */
export type WorkerActivities = ReturnType<typeof createWorkerActivities>;

/**
 * The only place that wires activities to their dependencies (docs/architecture.md): every
 * workflow's activities, each built by its feature's factory.
 */
export function createWorkerActivities(d: ActivityDeps) {
  return {
    ...createActivities({ db: d.db, validator: d.validator, subjectPrefix: d.subjectPrefix, log: d.log, metrics: d.metrics, payloadBudget: d.payloadBudget, json: d.json }),
    ...createRegistrationActivities({ db: d.db, subjectPrefix: d.subjectPrefix, log: d.log }),
    ...createMaintenanceActivities({ db: d.db, log: d.log, metrics: d.metrics }),
    ...createEmailActivities({ db: d.db, subjectPrefix: d.subjectPrefix, log: d.log, mail: d.mail, reachesDatabase: d.reachesDatabase, metrics: d.metrics }),
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
  /**
   * A prebuilt workflow bundle (faster start); else the workflows are bundled from source. With
   * `tracing`, the bundle must include the OpenTelemetry workflow interceptors
   * (`workflowBundlePaths(...).traced`, scripts/bundle-workflows.ts).
   */
  workflowBundlePath?: string;
  /**
   * The Worker Deployment Version this worker registers (docs/deploys.md): the deployment
   * (WORKER_DEPLOYMENT_NAME) and the build id of the code it runs (lib/buildInfo.ts).
   */
  version: { deploymentName: string; buildId: string };
  /**
   * Tracing on (lib/tracing.ts `activeTracing()`): the workflow's run and each step, local
   * activities included, are spans of the trace that started the workflow; the sandbox's spans
   * reach the process's span processor through the `exporter` sink.
   */
  tracing?: Pick<Tracing, 'spanProcessor' | 'resource'>;
}

/** The interceptors and sinks of tracing; none when it is off (no span, no header, no sink call). */
function tracingOptions(t: WorkerDeps['tracing'], fromSource: boolean): Pick<WorkerOptions, 'interceptors' | 'sinks' | 'bundlerOptions'> {
  if (!t) return {};
  // Loaded only with tracing on: an untraced worker never loads the OpenTelemetry SDK.
  const { makeWorkflowExporter, OpenTelemetryActivityInboundInterceptor, OpenTelemetryActivityOutboundInterceptor } = require('@temporalio/interceptors-opentelemetry') as typeof import('@temporalio/interceptors-opentelemetry');
  // The header the interceptors carry the trace context in.
  const { TRACE_HEADER } = require('@temporalio/interceptors-opentelemetry/lib/instrumentation') as typeof import('@temporalio/interceptors-opentelemetry/lib/instrumentation');
  return {
    interceptors: {
      activity: [
        (ctx) => {
          const inbound = new OpenTelemetryActivityInboundInterceptor(ctx);
          return {
            // An activity whose workflow passed no trace context (an import that is not sampled runs
            // without the workflow interceptors: workflows/tracingInterceptors.ts) starts no trace of its own.
            inbound: { execute: (input, next) => (input.headers[TRACE_HEADER] ? inbound.execute(input, next) : next(input)) },
            outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
          };
        },
      ],
      ...(fromSource ? { workflowModules: [WORKFLOW_TRACING_INTERCEPTORS] } : {}),
    },
    sinks: { exporter: makeWorkflowExporter(t.spanProcessor, t.resource) },
    // As the prebuilt traced bundle (scripts/bundle-workflows.ts).
    ...(fromSource ? { bundlerOptions: { preloadModules: TRACED_BUNDLE_PRELOAD_MODULES } } : {}),
  };
}

/** The Temporal worker of the task queue, over the activities it is given. */
export async function createWorker(d: WorkerDeps): Promise<Worker> {
  return Worker.create({
    connection: d.connection,
    namespace: d.namespace,
    taskQueue: d.taskQueue,
    ...(d.workflowBundlePath ? { workflowBundle: { codePath: d.workflowBundlePath } } : { workflowsPath: require.resolve('../workflows') }),
    activities: d.activities,
    ...tracingOptions(d.tracing, !d.workflowBundlePath),
    maxConcurrentActivityTaskExecutions: d.maxConcurrentActivities ?? 32,
    // The import steps are local activities: the same bound applies to them.
    maxConcurrentLocalActivityExecutions: d.maxConcurrentActivities ?? 32,
    maxConcurrentWorkflowTaskExecutions: d.maxConcurrentWorkflowTasks ?? 32,
    shutdownGraceTime: '30s',
    // Imports finish in one or two workflow tasks: a small sticky cache holds what is running
    // and keeps the worker's memory flat (docs/scaling.md, bench/NOTES.md).
    maxCachedWorkflows: d.maxCachedWorkflows ?? 100,
    // Worker Versioning: the server sends this worker only the tasks of workflows on its version.
    // A workflow that declares no behaviour is PINNED: it finishes on the build it started on
    // (each workflow type declares its own in workflows/, docs/deploys.md).
    workerDeploymentOptions: { useWorkerVersioning: true, version: d.version, defaultVersioningBehavior: 'PINNED' },
  });
}
