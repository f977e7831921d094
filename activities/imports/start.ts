import { getProcessById, type ImportProcess, startPendingRun } from '../../imports/store';
import { type ImportRef, logFor, move, type Settled, settled, type StepDeps } from './context';

export type StartOutcome = { outcome: 'ok' | 'stale' | 'window_expired' } | Settled;
type NotStarted = { outcome: 'stale' | 'window_expired' } | Settled;

/**
 * PENDING → IN_PROGRESS, unless the window has already ended. Run again for the same run (a
 * replay after a worker died), it continues from what it finds: IN_PROGRESS goes on, any later
 * status is reported as settled. Only another run number is stale.
 */
export async function startImport(deps: StepDeps, ref: ImportRef): Promise<StartOutcome> {
  const started = await startRun(deps, ref);
  return started.outcome === 'ok' ? { outcome: 'ok' } : started;
}

/**
 * startImport's change; an ok outcome carries the run's row. The usual case — this run, PENDING,
 * inside its window — is one conditional UPDATE (no transaction of its own: one round trip
 * instead of four); anything else is decided under the row's lock.
 */
export async function startRun(deps: StepDeps, ref: ImportRef): Promise<{ outcome: 'ok'; process: ImportProcess } | NotStarted> {
  const now = deps.now();
  const started = await startPendingRun(deps.db, ref.importProcessId, ref.run, now, 'validating');
  if (started) {
    deps.metrics?.importTransitions.inc({ status: 'IN_PROGRESS' });
    logFor(deps.log, started).info('import started');
    return { outcome: 'ok', process: started };
  }
  return deps.db.transaction(async (trx) => {
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
}
