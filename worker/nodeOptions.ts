/**
 * How a worker process is started by default (scripts/supervise.ts, which `npm run up` runs, and
 * the benchmarks' stack): node flags and environment, in one place.
 *
 * The V8 heap is capped: uncapped, V8 lets garbage pile up to ~130 MiB of old space on a live set
 * of ~50 MiB, and the worker's peak RSS reached 365–430 MiB in a 600-account run; capped it stays
 * near 250 MiB at the same CPU per account (bench/NOTES.md "Worker memory"). The young generation
 * is set explicitly, because V8 otherwise sizes it from the cap (1 MiB semi-spaces for 192 MiB),
 * which costs ~20 % more worker CPU in scavenges. The payload budget (imports/payloadBudget.ts)
 * is what keeps very large accounts within the cap.
 */
export const DEFAULT_WORKER_NODE_OPTIONS: readonly string[] = ['--max-old-space-size=192', '--max-semi-space-size=8'];

/** WORKER_NODE_OPTIONS when set (empty: no flags at all), else the defaults. */
export function workerNodeOptions(env: NodeJS.ProcessEnv): string[] {
  const v = env.WORKER_NODE_OPTIONS;
  return v === undefined ? [...DEFAULT_WORKER_NODE_OPTIONS] : v.split(/\s+/).filter(Boolean);
}

/**
 * The environment of a service process: glibc's malloc arenas limited to 2 unless MALLOC_ARENA_MAX
 * is set. The Temporal core's threads otherwise each grow an arena of their own: 25–30 MiB of RSS
 * more in the worker, no CPU difference measured.
 */
export function serviceProcessEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return env.MALLOC_ARENA_MAX ? env : { ...env, MALLOC_ARENA_MAX: '2' };
}
