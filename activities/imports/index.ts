import type { ActivityDeps, StepDeps } from './context';
import { startImport } from './start';
import { beginImport } from './begin';
import { validateImport } from './validate';
import { dryRunImport } from './dryRun';
import { createAccount } from './create';
import { cancelImport, completeDryRun, recordFailure } from './record';
import { postImport, recordPostImportError } from './postImport';

export type { ActivityDeps, ImportRef, Settled, SettledStatus } from './context';

type Step<I, O> = (deps: StepDeps, input: I) => Promise<O>;
type Bound<I, O> = (input: I) => Promise<O>;

/**
 * The import's activities (docs/spec/STYLE.md #3: built by a factory; the worker wires the dependencies).
 * Each is a plain function of its dependencies in its own file; their names are the activity
 * types recorded in workflow histories, so they never change. Every write is idempotent: the
 * import row is locked and its run checked, so a retried activity either finds its work done or
 * does it once.
 */
export function createActivities(activityDeps: ActivityDeps) {
  const deps: StepDeps = { ...activityDeps, now: activityDeps.now ?? (() => new Date()) };
  const bind =
    <I, O>(step: Step<I, O>): Bound<I, O> =>
    (input) =>
      step(deps, input);
  return {
    startImport: bind(startImport),
    beginImport: bind(beginImport),
    validateImport: bind(validateImport),
    dryRunImport: bind(dryRunImport),
    createAccount: bind(createAccount),
    completeDryRun: bind(completeDryRun),
    recordFailure: bind(recordFailure),
    cancelImport: bind(cancelImport),
    postImport: bind(postImport),
    recordPostImportError: bind(recordPostImportError),
  };
}

export type ImportActivities = ReturnType<typeof createActivities>;
