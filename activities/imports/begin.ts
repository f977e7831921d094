import type { ImportRef, StepDeps } from './context';
import { startRun, type StartOutcome } from './start';
import { needsRevalidation, readPayload, validatePayload } from './validate';

/**
 * The start of a run and its re-validation, one local activity (workflows taking the
 * 'lean-import-steps' path; startImport + validateImport before it): PENDING → IN_PROGRESS in one
 * transaction (startImport's), unless the window has already ended, then the stored payload validated again —
 * skipped when the fingerprint the API recorded with it is still the one a validation would have
 * now (account/fingerprint.ts). Run again for the same run, it continues from what it finds:
 * IN_PROGRESS validates (again), any later status is reported as settled. Only another run
 * number is stale. A validation failure is thrown as the non-retryable validation failure.
 */
export async function beginImport(deps: StepDeps, ref: ImportRef): Promise<StartOutcome> {
  const begun = await startRun(deps, ref);
  if (begun.outcome !== 'ok') return begun;
  if (await needsRevalidation(deps, begun.process)) {
    const validate = async () => validatePayload(deps, await readPayload(deps, ref.importProcessId));
    await (deps.payloadBudget ? deps.payloadBudget.admit(begun.process.payloadBytes, validate) : validate());
  } else {
    deps.metrics?.importValidations.inc({ outcome: 'skipped' });
  }
  return { outcome: 'ok' };
}
