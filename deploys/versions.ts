import type { Client } from '@temporalio/client';
import { isGrpcServiceError } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { optionalTsToMs } from '@temporalio/common/lib/time';

/**
 * The Worker Deployment of the service's task queue, read and steered through Temporal's own API
 * (WorkflowService: DescribeWorkerDeployment, SetWorkerDeploymentCurrentVersion,
 * SetWorkerDeploymentRampingVersion, DescribeTaskQueue, CountWorkflowExecutions): the TypeScript
 * client has no wrapper for them. Used by the worker (its first start), the operator CLI
 * (`data-import deploy …`), the operations page and the run command's rollout (docs/deploys.md).
 */

const E = temporal.api.enums.v1;

/** The gRPC status codes these calls answer with (grpc-js is the client's own dependency, not ours). */
const grpcStatus = { INVALID_ARGUMENT: 3, DEADLINE_EXCEEDED: 4, NOT_FOUND: 5, FAILED_PRECONDITION: 9, ABORTED: 10, UNAVAILABLE: 14 } as const;

export type VersionStatus = 'INACTIVE' | 'CURRENT' | 'RAMPING' | 'DRAINING' | 'DRAINED' | 'CREATED' | 'UNSPECIFIED';

const STATUS: Record<number, VersionStatus> = {
  [E.WorkerDeploymentVersionStatus.WORKER_DEPLOYMENT_VERSION_STATUS_INACTIVE]: 'INACTIVE',
  [E.WorkerDeploymentVersionStatus.WORKER_DEPLOYMENT_VERSION_STATUS_CURRENT]: 'CURRENT',
  [E.WorkerDeploymentVersionStatus.WORKER_DEPLOYMENT_VERSION_STATUS_RAMPING]: 'RAMPING',
  [E.WorkerDeploymentVersionStatus.WORKER_DEPLOYMENT_VERSION_STATUS_DRAINING]: 'DRAINING',
  [E.WorkerDeploymentVersionStatus.WORKER_DEPLOYMENT_VERSION_STATUS_DRAINED]: 'DRAINED',
  [E.WorkerDeploymentVersionStatus.WORKER_DEPLOYMENT_VERSION_STATUS_CREATED]: 'CREATED',
};

export interface VersionSummary {
  buildId: string;
  /**
   * CURRENT / RAMPING: new workflows go there; DRAINING: no longer current, pinned workflows
   * still open on it; DRAINED: none open (Temporal checks this periodically); INACTIVE: never
   * current or ramping; CREATED: registered, not yet used.
   */
  status: VersionStatus;
  createdAt: Date | null;
  currentSince: Date | null;
  rampingSince: Date | null;
  /** When it last stopped being current (absent on servers that do not report it). */
  lastCurrentAt: Date | null;
  /** When it stopped being current or ramping. */
  deactivatedAt: Date | null;
}

export interface DeploymentView {
  name: string;
  currentBuildId: string | null;
  ramping: { buildId: string; percentage: number } | null;
  /** Newest first. */
  versions: VersionSummary[];
  /** A routing change is still being propagated to the task queues. */
  routingUpdating: boolean;
  conflictToken: Uint8Array;
}

/**
 * Why a deployment call failed, told apart by the gRPC status code of Temporal's answer (never by
 * its wording): not_found (no worker deployment of that name), unknown_build (the deployment has
 * no such build: no worker of it has polled), refused (a precondition of the server failed, e.g.
 * no worker of the build is polling), conflict (the deployment changed meanwhile), invalid,
 * unavailable.
 */
export class DeploymentError extends Error {
  constructor(
    message: string,
    readonly reason: 'not_found' | 'unknown_build' | 'refused' | 'conflict' | 'invalid' | 'unavailable',
  ) {
    super(message);
  }
}

const date = (ts: Parameters<typeof optionalTsToMs>[0]) => {
  const ms = optionalTsToMs(ts);
  return ms === undefined || ms <= 0 ? null : new Date(ms);
};

/**
 * The DeploymentError of a gRPC error, by its status code; other errors as they are. A NOT_FOUND
 * of a call about a build is either the deployment's or the build's: `deploymentExists` (asked
 * only then) tells which.
 */
export async function deploymentError(err: unknown, deploymentName: string, buildId?: string, deploymentExists?: () => Promise<boolean>): Promise<unknown> {
  if (!isGrpcServiceError(err)) return err;
  const detail = err.details || err.message;
  switch (err.code) {
    case grpcStatus.NOT_FOUND:
      return buildId && deploymentExists && (await deploymentExists().catch(() => false))
        ? new DeploymentError(`build ${buildId} is not a version of the worker deployment ${deploymentName} (no worker of it has polled yet): ${detail}`, 'unknown_build')
        : new DeploymentError(`no worker deployment ${deploymentName} (no versioned worker has polled yet): ${detail}`, 'not_found');
    case grpcStatus.FAILED_PRECONDITION:
      return new DeploymentError(
        `Temporal refused to route to build ${buildId ?? '?'} of ${deploymentName}: ${detail} (a build is routed to only while its workers poll: start them first)`,
        'refused',
      );
    case grpcStatus.ABORTED:
      return new DeploymentError(`the deployment ${deploymentName} changed meanwhile; try again (${detail})`, 'conflict');
    case grpcStatus.INVALID_ARGUMENT:
      return new DeploymentError(detail, 'invalid');
    case grpcStatus.UNAVAILABLE:
    case grpcStatus.DEADLINE_EXCEEDED:
      return new DeploymentError(`Temporal is unavailable: ${detail}`, 'unavailable');
    default:
      return err;
  }
}

/** Whether the worker deployment exists (a versioned worker has polled it). */
const deploymentExists = (client: Client, deploymentName: string) => async () => (await describeDeployment(client, deploymentName)) !== null;

/** The deployment's routing and versions, or null when no versioned worker has ever polled it. */
export async function describeDeployment(client: Client, deploymentName: string): Promise<DeploymentView | null> {
  let r: temporal.api.workflowservice.v1.DescribeWorkerDeploymentResponse;
  try {
    r = await client.workflowService.describeWorkerDeployment({ namespace: client.options.namespace, deploymentName });
  } catch (err) {
    const e = await deploymentError(err, deploymentName);
    if (e instanceof DeploymentError && e.reason === 'not_found') return null;
    throw e;
  }
  const info = r.workerDeploymentInfo;
  const rc = info?.routingConfig;
  const versions = (info?.versionSummaries ?? []).map(
    (v): VersionSummary => ({
      buildId: v.deploymentVersion?.buildId ?? String(v.version ?? '').split('.').slice(1).join('.'),
      status: STATUS[v.status ?? 0] ?? 'UNSPECIFIED',
      createdAt: date(v.createTime),
      currentSince: date(v.currentSinceTime),
      rampingSince: date(v.rampingSinceTime),
      lastCurrentAt: date(v.lastCurrentTime),
      deactivatedAt: date(v.lastDeactivationTime),
    }),
  );
  versions.sort((a, b) => (b.createdAt?.getTime() ?? 0) - (a.createdAt?.getTime() ?? 0));
  const rampingBuild = rc?.rampingDeploymentVersion?.buildId ?? null;
  const rampingPct = rc?.rampingVersionPercentage ?? 0;
  return {
    name: deploymentName,
    currentBuildId: rc?.currentDeploymentVersion?.buildId ?? null,
    // A ramp is shown while one is set, even at 0 % (a ramp to unversioned workers has no build).
    ramping: rampingBuild ? { buildId: rampingBuild, percentage: rampingPct } : null,
    versions,
    routingUpdating: info?.routingConfigUpdateState === E.RoutingConfigUpdateState.ROUTING_CONFIG_UPDATE_STATE_IN_PROGRESS,
    conflictToken: r.conflictToken ?? new Uint8Array(),
  };
}

const IDENTITY = `data-import@${process.pid}`;

/** Makes `buildId` the current version: every new workflow of the task queue starts on it. */
export async function setCurrentVersion(
  client: Client,
  deploymentName: string,
  buildId: string,
  o: { identity?: string; conflictToken?: Uint8Array; allowNoPollers?: boolean } = {},
): Promise<{ previousBuildId: string | null }> {
  try {
    const r = await client.workflowService.setWorkerDeploymentCurrentVersion({
      namespace: client.options.namespace,
      deploymentName,
      buildId,
      identity: o.identity ?? IDENTITY,
      conflictToken: o.conflictToken,
      allowNoPollers: o.allowNoPollers ?? false,
    });
    return { previousBuildId: r.previousDeploymentVersion?.buildId ?? null };
  } catch (err) {
    throw await deploymentError(err, deploymentName, buildId, deploymentExists(client, deploymentName));
  }
}

/**
 * Sends `percentage` % of new workflows to `buildId` (the rest to the current version), decided
 * by a hash of the workflow id; `buildId` null removes the ramp.
 */
export async function setRampingVersion(
  client: Client,
  deploymentName: string,
  buildId: string | null,
  percentage: number,
  o: { identity?: string } = {},
): Promise<void> {
  if (!(percentage >= 0 && percentage <= 100)) throw new DeploymentError(`a ramp is a percentage from 0 to 100, got ${percentage}`, 'invalid');
  try {
    await client.workflowService.setWorkerDeploymentRampingVersion({
      namespace: client.options.namespace,
      deploymentName,
      buildId: buildId ?? '',
      percentage: buildId === null ? 0 : percentage,
      identity: o.identity ?? IDENTITY,
    });
  } catch (err) {
    throw await deploymentError(err, deploymentName, buildId ?? undefined, deploymentExists(client, deploymentName));
  }
}

/** Waits (bounded) until the server's routing change has reached every task queue of the deployment. */
export async function waitForRouting(client: Client, deploymentName: string, want: (d: DeploymentView) => boolean, timeoutMs = 30_000): Promise<DeploymentView> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const d = await describeDeployment(client, deploymentName);
    if (d && !d.routingUpdating && want(d)) return d;
    if (Date.now() > deadline) throw new DeploymentError(`the routing of ${deploymentName} did not settle within ${Math.round(timeoutMs / 1000)} s`, 'unavailable');
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Waits (bounded) until a worker of `buildId` has polled and the server lists the version. */
export async function waitForVersion(client: Client, deploymentName: string, buildId: string, timeoutMs = 60_000): Promise<DeploymentView> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const d = await describeDeployment(client, deploymentName);
    if (d?.versions.some((v) => v.buildId === buildId)) return d;
    if (Date.now() > deadline) throw new DeploymentError(`build ${buildId} did not appear in the worker deployment ${deploymentName} within ${Math.round(timeoutMs / 1000)} s`, 'unknown_build');
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * A worker's first start on a namespace: when the deployment has no current version (and no
 * ramp), nothing would run new workflows, so the worker's own build becomes current. Once a
 * version is current only an operator changes it (`data-import deploy set-current`). Several
 * workers starting at once race harmlessly: a lost race is a conflict, and the winner's build
 * (the same or another) is current.
 */
export async function becomeCurrentIfNone(client: Client, deploymentName: string, buildId: string, timeoutMs = 60_000): Promise<'became_current' | 'current_already' | 'other_current'> {
  for (let attempt = 0; ; attempt++) {
    const d = await waitForVersion(client, deploymentName, buildId, timeoutMs);
    if (d.currentBuildId === buildId) return 'current_already';
    if (d.currentBuildId !== null || d.ramping) return 'other_current';
    try {
      await setCurrentVersion(client, deploymentName, buildId, { conflictToken: d.conflictToken, identity: `worker ${buildId} (first start)` });
      return 'became_current';
    } catch (err) {
      if (err instanceof DeploymentError && err.reason === 'conflict' && attempt < 5) continue;
      throw err;
    }
  }
}

export interface Poller {
  buildId: string | null;
  identity: string;
  lastAccessAt: Date | null;
}

/** The workers polling the task queue for workflow tasks lately, with the build each runs. */
export async function workflowPollers(client: Client, taskQueue: string): Promise<Poller[]> {
  const r = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: taskQueue, kind: E.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: E.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  return (r.pollers ?? []).map((p) => ({
    buildId: p.deploymentOptions?.buildId || null,
    identity: p.identity ?? '',
    lastAccessAt: date(p.lastAccessTime),
  }));
}

/** The service's workflow types (workflows/index.ts): what the counts and the replay look at. */
export const WORKFLOW_TYPES = ['accountImport', 'registrationFlows', 'maintenance'] as const;

const quote = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** The visibility query of the open (Running) workflows of `types` on `taskQueue`. */
export function openWorkflowsQuery(taskQueue: string, types: readonly string[]): string {
  return `TaskQueue = ${quote(taskQueue)} AND WorkflowType IN (${types.map(quote).join(', ')}) AND ExecutionStatus = 'Running'`;
}

/**
 * Open workflows of `types` per build (TemporalWorkerDeploymentVersion = '<deployment>:<build>'),
 * and those no worker has taken yet (no version: started while no build was current, or waiting
 * for their first workflow task).
 */
export async function openWorkflowsByBuild(
  client: Client,
  o: { deploymentName: string; taskQueue: string; buildIds: readonly string[]; types?: readonly string[] },
): Promise<{ byBuild: Record<string, number>; unassigned: number; total: number }> {
  const base = openWorkflowsQuery(o.taskQueue, o.types ?? ['accountImport']);
  const count = async (extra: string) => (await client.workflow.count(`${base} AND ${extra}`)).count;
  const [total, unassigned, ...perBuild] = await Promise.all([
    client.workflow.count(base).then((c) => c.count),
    count('TemporalWorkerDeploymentVersion IS NULL'),
    ...o.buildIds.map((b) => count(`TemporalWorkerDeploymentVersion = ${quote(`${o.deploymentName}:${b}`)}`)),
  ]);
  return { byBuild: Object.fromEntries(o.buildIds.map((b, i) => [b, perBuild[i]!])), unassigned, total };
}
