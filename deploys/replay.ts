import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { temporal } from '@temporalio/proto';
import { WORKFLOW_TYPES } from './versions';

/**
 * Replay before deploy (docs/deploys.md): the histories of the open and recently closed
 * workflows of the service, pulled from the server, replayed against the workflow bundle of the
 * build about to be deployed. A workflow whose history the new code does not reproduce is
 * reported by id; the recorded histories in test/histories/ keep guarding the same in CI.
 */

export interface ReplaySelection {
  taskQueue: string;
  /** Workflow types (default: every workflow of the service). */
  types?: readonly string[];
  /** Closed workflows count when they closed within this many hours; open ones always. */
  sinceHours: number;
  /** At most this many executions, newest first. */
  limit: number;
  now?: Date;
}

export interface SelectedExecution {
  workflowId: string;
  runId: string;
  type: string;
  status: string;
  /** The build the execution is on (pinned) or last ran on; null before its first task. */
  buildId: string | null;
  behavior: 'PINNED' | 'AUTO_UPGRADE' | null;
}

const quote = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** The visibility query of the selection. */
export function replayQuery(sel: ReplaySelection): string {
  const since = new Date((sel.now ?? new Date()).getTime() - sel.sinceHours * 3_600_000).toISOString();
  const types = sel.types ?? WORKFLOW_TYPES;
  return `TaskQueue = ${quote(sel.taskQueue)} AND WorkflowType IN (${types.map(quote).join(', ')}) AND (ExecutionStatus = 'Running' OR CloseTime > ${quote(since)})`;
}

const BEHAVIOR: Record<number, SelectedExecution['behavior']> = {
  [temporal.api.enums.v1.VersioningBehavior.VERSIONING_BEHAVIOR_PINNED]: 'PINNED',
  [temporal.api.enums.v1.VersioningBehavior.VERSIONING_BEHAVIOR_AUTO_UPGRADE]: 'AUTO_UPGRADE',
};

/** A Keyword search attribute of a listed execution (the system ones are not in typedSearchAttributes). */
function keyword(w: WorkflowExecutionInfo, name: string): string | null {
  const p = w.raw.searchAttributes?.indexedFields?.[name];
  if (!p?.data) return null;
  try {
    const v: unknown = JSON.parse(Buffer.from(p.data).toString('utf8'));
    return typeof v === 'string' ? v : null;
  } catch {
    return null;
  }
}

function selected(w: WorkflowExecutionInfo): SelectedExecution {
  // Open executions carry their versioning info; closed ones only the search attributes of it
  // (TemporalWorkerDeploymentVersion '<deployment>:<build>', TemporalWorkflowVersioningBehavior).
  const v = w.raw.versioningInfo;
  const version = keyword(w, 'TemporalWorkerDeploymentVersion');
  const behavior = keyword(w, 'TemporalWorkflowVersioningBehavior');
  return {
    workflowId: w.workflowId,
    runId: w.runId,
    type: w.type,
    status: w.status.name,
    buildId: v?.deploymentVersion?.buildId || (version ? version.slice(version.indexOf(':') + 1) : null),
    behavior: BEHAVIOR[v?.behavior ?? 0] ?? (behavior === 'Pinned' ? 'PINNED' : behavior === 'AutoUpgrade' ? 'AUTO_UPGRADE' : null),
  };
}

/** The executions to replay (bounded by `limit`), and how many more matched. */
export async function selectExecutions(client: Client, sel: ReplaySelection): Promise<{ executions: SelectedExecution[]; matched: number; query: string }> {
  const query = replayQuery(sel);
  const matched = (await client.workflow.count(query)).count;
  const executions: SelectedExecution[] = [];
  if (sel.limit > 0) {
    for await (const w of client.workflow.list({ query, pageSize: Math.min(sel.limit, 1000) })) {
      executions.push(selected(w));
      if (executions.length >= sel.limit) break;
    }
  }
  return { executions, matched: Math.max(matched, executions.length), query };
}

export type ReplayOutcome = 'ok' | 'non_deterministic' | 'failed';

export interface ReplayedExecution extends SelectedExecution {
  outcome: ReplayOutcome;
  /** The first line of the error, for non_deterministic and failed. */
  error: string | null;
}

export interface ReplayProgress {
  phase: 'fetch' | 'replay';
  done: number;
  total: number;
}

/** Where the code about to be deployed is: a prebuilt bundle (dist/workflow-bundle.js), or the workflows' sources. */
export type WorkflowCode = { bundlePath: string } | { workflowsPath: string };

/**
 * Fetches each execution's history (a few at a time) and replays it against `code`. A history
 * that can no longer be fetched (deleted by retention meanwhile) counts as failed, not as passed.
 */
export async function replayExecutions(
  client: Client,
  executions: readonly SelectedExecution[],
  code: WorkflowCode,
  o: { concurrency?: number; onProgress?: (p: ReplayProgress) => void } = {},
): Promise<ReplayedExecution[]> {
  const key = (workflowId: string, runId: string) => `${workflowId}\0${runId}`;
  const results = new Map<string, ReplayedExecution>();
  let fetched = 0;
  let replayed = 0;
  const total = executions.length;

  // Histories are fetched ahead of the replay, at most `concurrency` at a time and a few more
  // waiting, so memory stays bounded however many executions are selected.
  const concurrency = o.concurrency ?? 4;
  async function* histories() {
    const queue: Promise<{ e: SelectedExecution; history: temporal.api.history.v1.IHistory | null; err: string | null }>[] = [];
    let next = 0;
    const fill = () => {
      while (queue.length < concurrency * 2 && next < executions.length) {
        const e = executions[next++]!;
        queue.push(
          client.workflow
            .getHandle(e.workflowId, e.runId)
            .fetchHistory()
            .then(
              (history) => ({ e, history, err: null }),
              (err: unknown) => ({ e, history: null, err: err instanceof Error ? err.message : String(err) }),
            )
            .finally(() => o.onProgress?.({ phase: 'fetch', done: ++fetched, total })),
        );
      }
    };
    fill();
    while (queue.length) {
      const { e, history, err } = await queue.shift()!;
      fill();
      if (!history) {
        results.set(key(e.workflowId, e.runId), { ...e, outcome: 'failed', error: `history not fetched: ${err}` });
        o.onProgress?.({ phase: 'replay', done: ++replayed, total });
        continue;
      }
      yield { workflowId: e.workflowId, history };
    }
  }

  const options = 'bundlePath' in code ? { workflowBundle: { codePath: code.bundlePath } } : { workflowsPath: code.workflowsPath };
  const byId = new Map(executions.map((e) => [key(e.workflowId, e.runId), e]));
  for await (const r of Worker.runReplayHistories({ ...options, replayName: 'data-import replay' }, histories())) {
    const e = byId.get(key(r.workflowId, r.runId)) ?? executions.find((x) => x.workflowId === r.workflowId && !results.has(key(x.workflowId, x.runId)));
    if (!e) continue;
    results.set(key(e.workflowId, e.runId), { ...e, outcome: replayOutcome(r.error), error: r.error ? firstLine(r.error.message) : null });
    o.onProgress?.({ phase: 'replay', done: ++replayed, total });
  }
  return executions.map((e) => results.get(key(e.workflowId, e.runId)) ?? { ...e, outcome: 'failed' as const, error: 'not replayed' });
}

/**
 * A replay's outcome, by the class of its error (never its wording): the SDK reports a history the
 * code does not reproduce as a DeterminismViolationError (its eviction reason NONDETERMINISM), any
 * other failure of the replay as a ReplayError.
 */
export function replayOutcome(error: Error | undefined): ReplayOutcome {
  if (!error) return 'ok';
  return error instanceof DeterminismViolationError ? 'non_deterministic' : 'failed';
}

const firstLine = (s: string) => (s.split('\n')[0] ?? '').slice(0, 500);
