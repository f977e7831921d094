import { type ImportRef, logFor, move, type Settled, settled, type StepDeps } from './context';
import { needsRevalidation, validatePayload } from './validate';
import { getPayload, getProcessById } from '../store';

/**
 * The start of a run and its re-validation, one local activity (workflows taking the
 * 'lean-import-steps' path; startImport + validateImport before it): PENDING → IN_PROGRESS in one
 * transaction, unless the window has already ended, then the stored payload validated again —
 * skipped when the fingerprint the API recorded with it is still the one a validation would have
 * now (account/fingerprint.ts). Run again for the same run, it continues from what it finds:
 * IN_PROGRESS validates (again), any later status is reported as settled. Only another run
 * number is stale. A validation failure is thrown as the non-retryable validation failure.
 */
export async function beginImport(deps: StepDeps, ref: ImportRef): Promise<{ outcome: 'ok' | 'stale' | 'window_expired' } | Settled> {
  const begun = await deps.db.transaction(async (trx) => {
    const p = await getProcessById(trx, ref.importProcessId, { forUpdate: true });
    if (!p || p.run !== ref.run) return { outcome: 'stale' as const };
    if (p.status === 'IN_PROGRESS') return { outcome: 'ok' as const, process: p }; // this activity, retried
    if (p.status !== 'PENDING') return settled(p);
    const at = deps.now();
    if (at.getTime() > p.scheduleWindowEnd.getTime()) return { outcome: 'window_expired' as const };
    await move(deps, trx, p, 'IN_PROGRESS', at, { step: 'validating' }, []);
    logFor(deps.log, p).info('import started');
    return { outcome: 'ok' as const, process: p };
  });
  if (begun.outcome !== 'ok') return begun;
  if (await needsRevalidation(deps, begun.process)) {
    await validatePayload(deps, await getPayload(deps.db, ref.importProcessId));
  } else {
    deps.metrics?.importValidations.inc({ outcome: 'skipped' });
  }
  return { outcome: 'ok' };
}
