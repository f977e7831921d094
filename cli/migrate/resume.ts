/**
 * Resuming `data-import migrate` (docs/bulk-migration.md, "Resuming"): what a run does with an
 * account of the book given the status an earlier run left it in, and what the state says of the
 * accounts a run could not see to the end because the API stayed away.
 */
import type { ApiUnavailableError } from '../shared/availability';
import type { MigrationState } from './state';
import type { AccountStatus, MigrationMode } from './types';

/** An earlier run submitted these: follow them instead of creating again. */
const FOLLOWABLE = new Set<AccountStatus>(['SUBMITTED', 'PENDING', 'IN_PROGRESS']);
/** Final failures that a re-run leaves alone unless --retry-failed. */
const FINAL_FAILURES = new Set<AccountStatus>(['VALIDATION_FAILED', 'ERRORED', 'CANCELLED']);
/** Statuses of an account the run had not seen to the end. */
const UNFINISHED = new Set<AccountStatus>(['NOT_SUBMITTED', 'SUBMITTED', 'PENDING', 'IN_PROGRESS']);

/**
 * What a run does with an account an earlier run left at `prior` (undefined: never seen): `skip`
 * it (its outcome is the one this run aims for, or a final failure kept without --retry-failed),
 * `follow` it (submitted and not final: ask its status, and send it again only when the earlier
 * create never landed), or `send` it.
 */
export function resumeOf(prior: AccountStatus | undefined, mode: MigrationMode, opts: { dryRunTasks?: boolean; retryFailed?: boolean }): 'skip' | 'follow' | 'send' {
  const done =
    prior === 'PROCESSED' ||
    (mode === 'stage' && prior === 'STAGED') ||
    (opts.dryRunTasks === true && prior === 'DRY_RUN_SUCCEEDED') ||
    (!opts.retryFailed && prior !== undefined && (FINAL_FAILURES.has(prior) || (opts.dryRunTasks === true && prior === 'DRY_RUN_ERRORED')));
  if (done) return 'skip';
  if (prior !== undefined && FOLLOWABLE.has(prior)) return 'follow';
  return 'send';
}

/**
 * The API stayed unavailable past --outage-timeout: every account of `externals` the run had not
 * seen to the end keeps its status and carries the cause as its error, so the report says why and
 * a re-run picks it up.
 */
export function markUnfinished(state: MigrationState, externals: Iterable<string>, cause: ApiUnavailableError): void {
  for (const external of externals) {
    const record = state.get(external);
    if (record && UNFINISHED.has(record.status)) {
      state.set(external, record.import_supplier, record.status, { errors: [{ code: cause.code, attr: 'non_field_errors', detail: cause.message }] });
    }
  }
}
