import type { ImportStatus } from '../../imports/store';
import { cancelledEvent, dryRunCompleteEvent, errorEvent } from '../../imports/events';
import { type ImportRef, lockRun, logFor, move, scopeOf, type Settled, settled, type StepDeps } from './context';

/** DRY_RUN_SUCCEEDED with its event, unless an earlier attempt of this run already ended it. */
export async function completeDryRun(deps: StepDeps, ref: ImportRef): Promise<Settled | void> {
  return deps.db.transaction(async (trx) => {
    const p = await lockRun(trx, ref);
    if (p.status === 'DRY_RUN_SUCCEEDED') return; // this activity, retried
    if (p.status !== 'IN_PROGRESS') return settled(p); // an earlier attempt of this run ended it
    const at = deps.now();
    await move(deps, trx, p, 'DRY_RUN_SUCCEEDED', at, { step: 'done', error: null }, [dryRunCompleteEvent(scopeOf(p, at))]);
  });
}

/**
 * ERRORED (or DRY_RUN_ERRORED) with latest_error, unless the run already ended otherwise: a
 * cancel got there first, the account was committed by an earlier attempt (the workflow goes
 * on to post-import), or an earlier attempt already recorded the end.
 */
export async function recordFailure(
  deps: StepDeps,
  input: ImportRef & { code: string; detail: string; dryRun: boolean },
): Promise<{ outcome: 'recorded' | 'cancelled' } | { outcome: 'processed'; accountNumber: string } | Settled> {
  return deps.db.transaction(async (trx) => {
    const p = await lockRun(trx, input);
    if (p.status === 'CANCELLED') return { outcome: 'cancelled' as const };
    if (p.status === 'PROCESSED') return { outcome: 'processed' as const, accountNumber: p.krakenIdentifier! };
    if (p.status !== 'IN_PROGRESS') return settled(p);
    const status: ImportStatus = input.dryRun ? 'DRY_RUN_ERRORED' : 'ERRORED';
    const at = deps.now();
    const error = { code: input.code, detail: input.detail, domain: 'import_process' as const };
    await move(deps, trx, p, status, at, { step: 'done', error }, [errorEvent(scopeOf(p, at), input.dryRun, input.code, input.detail)]);
    logFor(deps.log, p).warn({ code: input.code }, 'import failed');
    return { outcome: 'recorded' as const };
  });
}

/** CANCELLED with its event; too late once the account is committed, or once the run ended. */
export async function cancelImport(
  deps: StepDeps,
  input: ImportRef & { reason: 'operator' | 'window_expired' },
): Promise<{ outcome: 'cancelled' } | { outcome: 'too_late'; accountNumber: string } | Settled> {
  return deps.db.transaction(async (trx) => {
    const p = await lockRun(trx, input);
    if (p.status === 'PROCESSED') return { outcome: 'too_late' as const, accountNumber: p.krakenIdentifier! };
    if (p.status === 'CANCELLED') return { outcome: 'cancelled' as const };
    if (p.status !== 'PENDING' && p.status !== 'IN_PROGRESS') return settled(p);
    const at = deps.now();
    await move(deps, trx, p, 'CANCELLED', at, { step: input.reason === 'operator' ? 'cancelled_by_operator' : 'window_expired' }, [cancelledEvent(scopeOf(p, at), p.scheduleWindowEnd)]);
    logFor(deps.log, p).info({ reason: input.reason }, 'import cancelled');
    return { outcome: 'cancelled' as const };
  });
}
