import type { Client } from '@temporalio/client';
import type { Config } from '../lib/config';
import { describeDeployment, openWorkflowsByBuild, workflowPollers, WORKFLOW_TYPES } from './versions';

/**
 * What runs where: the worker deployment's builds, each with its status, its running workers and
 * the imports (and other workflows) open on it. `data-import deploy status` prints it, the
 * operations page shows it (GET /api/builds), the run command's rollout reads it.
 */

/** A worker seen polling within this long counts as running. */
export const POLLER_RECENT_MS = 2 * 60_000;

export interface BuildRow {
  build_id: string;
  status: string;
  /** Worker processes of this build polling the task queue lately. */
  workers: number;
  open_imports: number;
  /** Open workflows of every type of the service on this build (imports included). */
  open_workflows: number;
  created_at: string | null;
  current_since: string | null;
  ramping_since: string | null;
  deactivated_at: string | null;
}

export interface DeployStatus {
  deployment: string;
  namespace: string;
  task_queue: string;
  current_build_id: string | null;
  ramping: { build_id: string; percentage: number } | null;
  routing_updating: boolean;
  builds: BuildRow[];
  /** Open imports no build has taken yet (waiting for a current version or for their first task). */
  unassigned_open_imports: number;
  open_imports: number;
}

/** The deployment, its builds with their workers and open workflows: `deploy status`, the operations page. */
export async function deployStatus(client: Client, config: Pick<Config, 'temporal'>): Promise<DeployStatus> {
  const { deploymentName, taskQueue, namespace } = config.temporal;
  const d = await describeDeployment(client, deploymentName);
  const builds = d?.versions ?? [];
  const ids = builds.map((b) => b.buildId);
  const [imports, all, pollers] = await Promise.all([
    openWorkflowsByBuild(client, { deploymentName, taskQueue, buildIds: ids, types: ['accountImport'] }),
    openWorkflowsByBuild(client, { deploymentName, taskQueue, buildIds: ids, types: WORKFLOW_TYPES }),
    workflowPollers(client, taskQueue),
  ]);
  const recent = Date.now() - POLLER_RECENT_MS;
  const workers = (id: string) => new Set(pollers.filter((p) => p.buildId === id && (p.lastAccessAt?.getTime() ?? 0) >= recent).map((p) => p.identity)).size;
  const iso = (x: Date | null) => x?.toISOString() ?? null;
  return {
    deployment: deploymentName,
    namespace,
    task_queue: taskQueue,
    current_build_id: d?.currentBuildId ?? null,
    ramping: d?.ramping ? { build_id: d.ramping.buildId, percentage: d.ramping.percentage } : null,
    routing_updating: d?.routingUpdating ?? false,
    builds: builds.map((b) => ({
      build_id: b.buildId,
      status: b.status,
      workers: workers(b.buildId),
      open_imports: imports.byBuild[b.buildId] ?? 0,
      open_workflows: all.byBuild[b.buildId] ?? 0,
      created_at: iso(b.createdAt),
      current_since: iso(b.currentSince),
      ramping_since: iso(b.rampingSince),
      deactivated_at: iso(b.deactivatedAt),
    })),
    unassigned_open_imports: imports.unassigned,
    open_imports: imports.total,
  };
}
