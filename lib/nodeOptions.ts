/**
 * How the service processes are started by default (scripts/supervise.ts, which `npm run up`
 * runs, and the benchmarks' stack): node flags and environment, in one place.
 *
 * The V8 heap is capped: uncapped, V8 lets garbage pile up to ~130 MiB of old space on a live set
 * of ~50 MiB, and the worker's peak RSS reached 365–430 MiB in a 600-account run; capped it stays
 * near 250 MiB at the same CPU per account (bench/NOTES.md "Memory"). The young generation
 * is set explicitly, because V8 otherwise sizes it from the cap (1 MiB semi-spaces for 192 MiB),
 * which costs ~20 % more worker CPU in scavenges. The payload budget (lib/payloadBudget.ts)
 * is what keeps very large accounts within the cap.
 */
export const DEFAULT_WORKER_NODE_OPTIONS: readonly string[] = ['--max-old-space-size=192', '--max-semi-space-size=8'];

const flags = (v: string | undefined, defaults: readonly string[]) => (v === undefined ? [...defaults] : v.split(/\s+/).filter(Boolean));

/**
 * The API's heap capped the same way: uncapped, its peak RSS grew to 244–249 MiB over a
 * 1,500-account run on ~40 MiB live; capped 133 MiB at the same CPU (bench/NOTES.md "Memory").
 * Its body budget (API_BODY_BUDGET, http/middleware/jsonBody.ts) keeps very large bodies within it.
 */
export const DEFAULT_API_NODE_OPTIONS: readonly string[] = ['--max-old-space-size=160', '--max-semi-space-size=8'];

/** API_NODE_OPTIONS when set (empty: no flags at all), else the defaults. */
export function apiNodeOptions(env: NodeJS.ProcessEnv): string[] {
  return flags(env.API_NODE_OPTIONS, DEFAULT_API_NODE_OPTIONS);
}

/** WORKER_NODE_OPTIONS when set (empty: no flags at all), else the defaults. */
export function workerNodeOptions(env: NodeJS.ProcessEnv): string[] {
  return flags(env.WORKER_NODE_OPTIONS, DEFAULT_WORKER_NODE_OPTIONS);
}

/**
 * The environment of a service process: glibc's malloc arenas limited to 2 unless MALLOC_ARENA_MAX
 * is set. The Temporal core's threads otherwise each grow an arena of their own: 25–30 MiB of RSS
 * more in the worker, no CPU difference measured.
 */
export function serviceProcessEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return env.MALLOC_ARENA_MAX ? env : { ...env, MALLOC_ARENA_MAX: '2' };
}
