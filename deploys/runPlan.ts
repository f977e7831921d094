import type { Poller } from './versions';
import type { DeployStatus } from './status';

/**
 * What `npm run up` does about the builds other than its own (docs/deploys.md, "Under npm run
 * up"). The Temporal dev server keeps its state across runs (data/temporal/temporal.db), so after a
 * code change the new run registers build B while the build A of the last run is still current
 * and its imports are still pinned to it. Left alone, new imports would start on A — whose
 * workers are gone — and never run. The run command therefore, at each start:
 *
 * 1. runs the workers of every older build that still has open imports pinned to it, from its
 *    kept copy in data/builds/<id>/ (`planOldBuilds`), beside the new build's; and retires them
 *    once that build is drained (`isDrained`);
 * 2. once its own build has registered, makes it current when the current build has no workers
 *    here or anywhere (`decideRouting`): nothing pinned is lost by that, and otherwise every new
 *    import would wait. When the current build does have workers (its imports are still running
 *    here, or it runs elsewhere) routing is the operator's: the run prints the exact steps.
 *
 * Pure functions, for the unit tests; scripts/supervise.ts does the talking to Temporal.
 */

export interface OldBuildPlan {
  /** Builds whose workers this run starts: an open import pinned to them, or named with --run-build. */
  run: { buildId: string; reason: 'open-imports' | 'asked'; openImports: number }[];
  /** Builds with open imports pinned to them that this run cannot serve: no kept copy, or --old-workers 0. */
  stranded: { buildId: string; openImports: number; why: 'not-kept' | 'old-workers-off' }[];
  /** Builds named with --run-build that are not kept. */
  missing: string[];
}

export function planOldBuilds(o: { status: DeployStatus | null; thisBuild: string; kept: ReadonlySet<string>; asked: readonly string[]; oldWorkers: number }): OldBuildPlan {
  const plan: OldBuildPlan = { run: [], stranded: [], missing: [] };
  const rows = new Map((o.status?.builds ?? []).map((b) => [b.build_id, b]));
  for (const id of new Set(o.asked)) {
    if (id === o.thisBuild) continue;
    if (o.kept.has(id)) plan.run.push({ buildId: id, reason: 'asked', openImports: rows.get(id)?.open_imports ?? 0 });
    else plan.missing.push(id);
  }
  for (const b of o.status?.builds ?? []) {
    if (b.build_id === o.thisBuild || b.open_imports === 0 || o.asked.includes(b.build_id)) continue;
    if (o.oldWorkers > 0 && o.kept.has(b.build_id)) plan.run.push({ buildId: b.build_id, reason: 'open-imports', openImports: b.open_imports });
    else plan.stranded.push({ buildId: b.build_id, openImports: b.open_imports, why: o.oldWorkers > 0 ? 'not-kept' : 'old-workers-off' });
  }
  return plan;
}

/**
 * A poller identity is the SDK's `<pid>@<host>`. On this host, a pid that no longer runs is a
 * worker of an earlier run that stopped: the server keeps listing it for minutes.
 */
export function isGoneLocalPoller(identity: string, hostname: string, pidAlive: (pid: number) => boolean): boolean {
  const m = /^(\d+)@(.+)$/.exec(identity);
  return !!m && m[2] === hostname && !pidAlive(Number(m[1]));
}

/** Distinct identities polling lately for `buildId`, without the stopped workers of this host. */
export function liveWorkers(pollers: readonly Poller[], buildId: string, o: { now: number; recentMs: number; hostname: string; pidAlive: (pid: number) => boolean }): string[] {
  const ids = pollers
    .filter((p) => p.buildId === buildId && (p.lastAccessAt?.getTime() ?? 0) >= o.now - o.recentMs && !isGoneLocalPoller(p.identity, o.hostname, o.pidAlive))
    .map((p) => p.identity);
  return [...new Set(ids)].sort();
}

export type RoutingDecision =
  | { action: 'none'; why: 'this-current' | 'none-current' | 'ramping' | 'current-runs-here' | 'current-runs-elsewhere' }
  | { action: 'promote'; from: string }
  | { action: 'warn'; from: string };

/** After this run's build registered: whether it should become current (see the file's comment). */
export function decideRouting(o: { status: DeployStatus; thisBuild: string; runningHere: ReadonlySet<string>; liveElsewhere: (buildId: string) => number; promote: boolean }): RoutingDecision {
  const current = o.status.current_build_id;
  if (current === o.thisBuild) return { action: 'none', why: 'this-current' };
  // Nothing current: the worker's own first start makes its build current (WORKER_BECOME_CURRENT).
  if (current === null) return { action: 'none', why: 'none-current' };
  // A ramp is an operator's deliberate state mid-rollout: leave it (the run says what it sees).
  if (o.status.ramping) return { action: 'none', why: 'ramping' };
  if (o.runningHere.has(current)) return { action: 'none', why: 'current-runs-here' };
  if (o.liveElsewhere(current) > 0) return { action: 'none', why: 'current-runs-elsewhere' };
  return o.promote ? { action: 'promote', from: current } : { action: 'warn', from: current };
}

/**
 * An old build whose workers this run may stop: neither current nor ramping, and nothing open on
 * it (imports or any other workflow). Judged by visibility counts, like `deploy drain-status`.
 */
export function isDrained(status: DeployStatus, buildId: string): boolean {
  if (status.current_build_id === buildId || status.ramping?.build_id === buildId) return false;
  const row = status.builds.find((b) => b.build_id === buildId);
  return !!row && row.open_workflows === 0 && row.open_imports === 0;
}
