import type { WorkerDeps } from './createWorker';

/** Activities of other workflows (registration flows), added as they are built. */
export function buildWorkerActivities(_d: WorkerDeps): Record<string, (...args: never[]) => Promise<unknown>> {
  return {};
}
