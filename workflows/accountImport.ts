// long-file (309 lines): one workflow per file (the layer rule): its steps, queries, cancellation and patches together.
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  defineQuery,
  isCancellation,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  setWorkflowOptions,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { RetryPolicy } from '@temporalio/common';
import type { createActivities, Settled } from '../activities/imports';
import type { EmailActivities } from '../activities/emails/customerEmails';
import { ImportStatusKey } from './searchAttributes';
import { IMPORT_FAILURE } from '../lib/failureCodes';
import { escapeMarkdown as md } from './markdown';

/** Workflow input: ids and settings only; the payload stays in PostgreSQL (claim check). */
export interface AccountImportInput {
  importProcessId: string;
  run: number;
  importSupplier: string;
  externalAccountNumber: string;
  isDryRun: boolean;
  /** ISO 8601 */
  scheduleWindowStart: string;
  /** ISO 8601 */
  scheduleWindowEnd: string;
}

export type AccountImportOutcome =
  | { status: 'PROCESSED'; accountNumber: string }
  | { status: 'DRY_RUN_SUCCEEDED' | 'DRY_RUN_ERRORED' | 'ERRORED' | 'CANCELLED'; errorCode?: string }
  | { status: 'STALE' };

/**
 * ImportStatus of an execution whose run the database no longer knows (a newer run of the same
 * import exists): it acts on nothing and says so, instead of keeping a status that is not true.
 */
export const SUPERSEDED_STATUS = 'SUPERSEDED';

export interface ImportProgress {
  status: string;
  step: string;
  accountNumber: string | null;
}

export const importStatusQuery = defineQuery<ImportProgress>('importStatus');

type Activities = ReturnType<typeof createActivities>;

/**
 * Infrastructure failures (database or NATS unreachable) retry with backoff for about five
 * minutes (10 attempts, 1 s doubling to 60 s) before the import is ERRORED; business failures are
 * non-retryable ApplicationFailures and end the import at once.
 */
const INFRA_RETRY: RetryPolicy = { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '60s', maximumAttempts: 10 };

/*
 * Every step is a local activity: it runs in the worker that runs the workflow task, and its
 * result is recorded in the history when that task completes, so a whole import costs one or two
 * workflow tasks on the Temporal server instead of a round trip per step (bench/RESULTS.md has the
 * figures). This is safe because every step is idempotent: if the worker dies mid-step, the
 * workflow task times out (10 s), another worker replays the workflow and runs the step again,
 * and the row lock + run check make the second run find the work done or do it once.
 */
const steps = proxyLocalActivities<Activities>({
  startToCloseTimeout: '2m',
  retry: INFRA_RETRY,
  // Backoffs of 2 s and more wait on a durable workflow timer, not in the worker's memory.
  localRetryThreshold: '2s',
});

// Writing the account: as above, with room for very large accounts.
const writers = proxyLocalActivities<Activities>({
  startToCloseTimeout: '5m',
  retry: INFRA_RETRY,
  localRetryThreshold: '2s',
});

// Recording an outcome must eventually succeed, whatever the outage: retried without a bound.
const recorder = proxyLocalActivities<Activities>({
  startToCloseTimeout: '1m',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '60s' },
  localRetryThreshold: '2s',
});

/*
 * Customer e-mails go through a relay that may be slow, rate-limited or down for a while: a
 * regular activity (its own task, heartbeats, server-side retries), not a local one. A worker
 * killed mid-send stops heartbeating and the attempt is retried on another worker within the
 * heartbeat timeout; the rate wait heartbeats too. Temporary SMTP answers retry with backoff for
 * about 40 minutes (12 attempts, 2 s doubling to 10 min; docs/customer-emails.md), then what is left is FAILED.
 */
const mailer = proxyActivities<EmailActivities>({
  startToCloseTimeout: '30m',
  heartbeatTimeout: '20s',
  retry: { initialInterval: '2s', backoffCoefficient: 2, maximumInterval: '10m', maximumAttempts: 12 },
});
const emailSteps = proxyLocalActivities<EmailActivities>({ startToCloseTimeout: '2m', retry: INFRA_RETRY, localRetryThreshold: '2s' });
const emailRecorder = proxyLocalActivities<EmailActivities>({
  startToCloseTimeout: '1m',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '60s' },
  localRetryThreshold: '2s',
});

/**
 * The patch of the path with fewer steps per import (bench/NOTES.md): beginImport (start and
 * re-validation in one local activity) and beginPostImport (queue and finish the e-mails in one
 * when nothing is to be sent). Histories recorded before it replay the old path.
 */
const LEAN_STEPS = 'lean-import-steps';

/** Code recorded when retries of an infrastructure failure ran out. */
export const INFRASTRUCTURE_ERROR_CODE = IMPORT_FAILURE.infrastructure;

function failureOf(err: unknown): { code: string; detail: string } {
  let cause: unknown = err;
  if (cause instanceof ActivityFailure) cause = cause.cause;
  if (cause instanceof ApplicationFailure && cause.nonRetryable && cause.type) {
    return { code: cause.type, detail: cause.message };
  }
  return {
    code: INFRASTRUCTURE_ERROR_CODE,
    detail: `The import could not be completed after repeated infrastructure failures: ${cause instanceof Error ? cause.message : String(cause)}`,
  };
}

/**
 * One account import (docs/spec/DESIGN.md "Flow of one import"): wait for the schedule window (PENDING),
 * re-validate (IN_PROGRESS), then either the dry run (dry-run tasks) or the create transaction,
 * then post-import follow-ups. PostgreSQL holds the status the API reads; every transition is made
 * by an activity in the same transaction as its events. A cancel before commit ends CANCELLED with
 * no account; the create transaction and the cancel both lock the import row, so whichever commits
 * first wins and a cancel after commit leaves the import PROCESSED.
 */
export async function accountImport(input: AccountImportInput): Promise<AccountImportOutcome> {
  const ref = { importProcessId: input.importProcessId, run: input.run };
  const progress: ImportProgress = { status: 'PENDING', step: 'waiting for the schedule window', accountNumber: null };
  setHandler(importStatusQuery, () => progress);

  const show = (status: string, step: string) => {
    progress.status = status;
    progress.step = step;
    setCurrentDetails(`**${status}** — ${md(step)}\n\nImport supplier: ${md(input.importSupplier)}\n\nExternal account number: ${md(input.externalAccountNumber)}\n\nRun: ${input.run}`);
    // Kept current only on executions started with it (every start by the service is): a
    // namespace without the attribute registered would fail the workflow task.
    const current = workflowInfo().typedSearchAttributes.get(ImportStatusKey);
    if (current !== undefined && current !== status) {
      upsertSearchAttributes([{ key: ImportStatusKey, value: status }]);
    }
  };

  const finishCancelled = async (reason: 'operator' | 'window_expired'): Promise<AccountImportOutcome> => {
    const r = await CancellationScope.nonCancellable(() => recorder.cancelImport({ ...ref, reason }));
    if (r.outcome === 'settled') return endSettled(r);
    if (r.outcome === 'too_late') {
      // The account was committed before the cancel: the import stays PROCESSED.
      progress.accountNumber = r.accountNumber;
      show('PROCESSED', 'cancel arrived after the account was committed');
      await CancellationScope.nonCancellable(() => postImport());
      return { status: 'PROCESSED', accountNumber: r.accountNumber };
    }
    show('CANCELLED', reason === 'operator' ? 'cancelled by an operator' : 'schedule window ended before the import could start');
    return { status: 'CANCELLED' };
  };

  /**
   * The run already ended (found by a step that a replay ran again, see activities Settled): end
   * the workflow in exactly that status, after the post-import follow-ups for a committed account.
   */
  const endSettled = async (r: Settled): Promise<AccountImportOutcome> => {
    if (r.status === 'PROCESSED') {
      progress.accountNumber = r.accountNumber;
      await CancellationScope.nonCancellable(() => postImport());
      return { status: 'PROCESSED', accountNumber: r.accountNumber! };
    }
    show(r.status, r.errorCode ? `already ended: ${r.errorCode}` : 'already ended');
    if (r.status === 'CANCELLED' || r.status === 'DRY_RUN_SUCCEEDED') return { status: r.status };
    return { status: r.status, errorCode: r.errorCode ?? undefined };
  };

  const postImport = async () => {
    show('PROCESSED', 'post-import follow-ups');
    try {
      // Histories recorded before delivery existed took the old path (queue only) and replay it.
      if (patched('customer-email-delivery')) {
        // 'lean-import-steps': queue and, when nothing is to be sent, finish in one local activity.
        const lean = patched(LEAN_STEPS);
        const q = lean ? await emailSteps.beginPostImport(ref) : await emailSteps.queueCustomerEmails(ref);
        if ('finished' in q && q.finished !== undefined) {
          show('PROCESSED', q.finished === 'completed' ? 'done' : 'done (some customer e-mails failed)');
          return;
        }
        if (q.queued > 0) {
          show('PROCESSED', `sending ${q.queued} customer e-mail(s)`);
          try {
            await mailer.deliverCustomerEmails(ref);
          } catch (err) {
            // Retries ran out or the sender is not configured: the rest is FAILED, the import stays PROCESSED.
            const cause = err instanceof ActivityFailure ? err.cause : err;
            await emailRecorder.giveUpCustomerEmails({ ...ref, code: cause instanceof ApplicationFailure && cause.type ? cause.type : INFRASTRUCTURE_ERROR_CODE });
          }
        }
        const done = await emailRecorder.finishPostImport(ref);
        show('PROCESSED', done.outcome === 'completed' ? 'done' : 'done (some customer e-mails failed)');
        return;
      }
      const r = await steps.postImport(ref);
      // Histories recorded before post-import reported its outcome carry no result: completed.
      if (r?.outcome === 'failed') show('PROCESSED', 'post-import failed earlier');
      else show('PROCESSED', 'done');
    } catch (err) {
      // The account exists whatever happens here: record the follow-up failure, stay PROCESSED.
      const f = failureOf(err);
      await recorder.recordPostImportError({ ...ref, ...f });
      show('PROCESSED', `post-import failed: ${f.code}`);
    }
  };

  /** A step failed for good: ERRORED (or DRY_RUN_ERRORED) recorded, unless the run had already ended otherwise. */
  const recordFailed = async (err: unknown): Promise<AccountImportOutcome> => {
    const f = failureOf(err);
    const recorded = await recorder.recordFailure({ ...ref, ...f, dryRun: input.isDryRun });
    if (recorded.outcome === 'cancelled') {
      show('CANCELLED', 'cancelled while running');
      return { status: 'CANCELLED' };
    }
    if (recorded.outcome === 'processed') {
      // An earlier attempt of this run committed the account before this one failed.
      return await endSettled({ outcome: 'settled', status: 'PROCESSED', accountNumber: recorded.accountNumber, errorCode: null });
    }
    if (recorded.outcome === 'settled') return await endSettled(recorded);
    show(input.isDryRun ? 'DRY_RUN_ERRORED' : 'ERRORED', f.code);
    return { status: input.isDryRun ? 'DRY_RUN_ERRORED' : 'ERRORED', errorCode: f.code };
  };

  show('PENDING', 'waiting for the schedule window');
  try {
    const waitMs = Date.parse(input.scheduleWindowStart) - Date.now();
    if (waitMs > 0) await sleep(waitMs);

    show('IN_PROGRESS', 'validating');
    // Moving to IN_PROGRESS must eventually happen whatever the outage (or the window ends first):
    // a start that gave up would leave the row PENDING with its workflow closed. On the
    // 'lean-import-steps' path the same local activity re-validates (skipped when the API's
    // validation fingerprint still holds), so its failures go where validateImport's go.
    const lean = patched(LEAN_STEPS);
    let started: Awaited<ReturnType<Activities['startImport']>>;
    try {
      started = lean ? await recorder.beginImport(ref) : await recorder.startImport(ref);
    } catch (err) {
      if (isCancellation(err)) throw err;
      // Only the validation in beginImport fails for good (startImport retries for ever).
      return await recordFailed(err);
    }
    if (started.outcome === 'stale') {
      show(SUPERSEDED_STATUS, 'a newer run of this import exists');
      return { status: 'STALE' };
    }
    if (started.outcome === 'settled') return await endSettled(started);
    if (started.outcome === 'window_expired') return await finishCancelled('window_expired');

    try {
      if (!lean) await steps.validateImport(ref);
      if (input.isDryRun) {
        show('IN_PROGRESS', 'dry run');
        await writers.dryRunImport(ref);
        const completed = await recorder.completeDryRun(ref);
        if (completed?.outcome === 'settled') return await endSettled(completed);
        show('DRY_RUN_SUCCEEDED', 'done');
        return { status: 'DRY_RUN_SUCCEEDED' };
      }
      show('IN_PROGRESS', 'creating the account');
      const created = await writers.createAccount(ref);
      progress.accountNumber = created.accountNumber;
    } catch (err) {
      if (isCancellation(err)) throw err;
      return await recordFailed(err);
    }
  } catch (err) {
    if (isCancellation(err)) {
      await finishCancelled('operator');
      // Let Temporal show the execution as Canceled unless the account was committed.
      if (progress.status === 'CANCELLED') throw err;
      return { status: 'PROCESSED', accountNumber: progress.accountNumber! };
    }
    throw err;
  }

  // Committed: nothing can undo it now, not even a cancel.
  await CancellationScope.nonCancellable(() => postImport());
  return { status: 'PROCESSED', accountNumber: progress.accountNumber! };
}

/*
 * Worker Versioning (docs/deploys.md): an import is PINNED. It finishes on the build it started on
 * even when another build becomes current meanwhile, so a deploy in the middle of a migration
 * never replays an import's history on other code; `patched()` above stays for the histories of
 * imports moved to another build by an operator, and for the recorded ones in test/histories/.
 */
setWorkflowOptions({ versioningBehavior: 'PINNED' }, accountImport);
