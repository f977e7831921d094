import { ApplicationFailure } from '@temporalio/common';
import { Context } from '@temporalio/activity';
import type { Knex } from 'knex';
import type { Logger } from '../../lib/logger';
import { EMAIL_FAILURE } from '../../lib/failureCodes';
import type { ImportRef } from '../imports/context';
import { getProcessById, ImportProcess, lockProcessWith, setStep, setStepStatement } from '../../imports/store';
import { getSupplier } from '../../suppliers/store';
import { findAccountByExternal } from '../../db/stores/accountStore';
import { cachedSupplier } from '../../suppliers/databaseValidator';
import { enqueueEvents } from '../../events/outbox';
import { postImportCompletedEvent, postImportErrorEvent } from '../../imports/events';
import { countEmailsByStatus, countsFromJson, EMAIL_COUNTS_OF_IMPORT_ROW, type EmailStatus, failQueued, queueEmails } from '../../emails/store';
import { deliverAccountEmails, SenderNotConfiguredError } from '../../emails/delivery';
import type { Mailer } from '../../emails/mailer';
import type { Metrics } from '../../lib/metrics';

export const WELCOME_TEMPLATE = 'migration_welcome';

export interface EmailActivityDeps {
  db: Knex;
  subjectPrefix: string;
  log: Logger;
  /** The relay and the templates; a worker without them fails delivery with a stable code. */
  mail?: Mailer;
  now?: () => Date;
  /**
   * Whether this worker still reaches PostgreSQL (the worker's watchdog, db/watchdog.ts). The
   * delivery heartbeats only while it does: a worker cut off from PostgreSQL (but not from
   * Temporal) stops claiming its e-mail activities at once, so Temporal hands them to another
   * worker after the heartbeat timeout (20 s), instead of after the worker has left
   * (WORKER_DB_UNREACHABLE_EXIT_MS) plus that timeout. Unset: always.
   */
  reachesDatabase?: () => boolean;
  /** Counts e-mails that failed for themselves and those set aside (docs/operations.md "Set-aside queue items"). */
  metrics?: Pick<Metrics, 'queueItemFailures' | 'queueItemsSetAside'>;
}

/** The PROCESSED row of this run, locked, with its account's e-mails by state read by the same statement. */
async function lockProcessed(trx: Knex, ref: ImportRef): Promise<ImportProcess & { krakenIdentifier: string; emailCounts: Record<EmailStatus, number> }> {
  const locked = await lockProcessWith(trx, ref.importProcessId, { email_counts: EMAIL_COUNTS_OF_IMPORT_ROW });
  const p = locked?.process;
  if (!p || p.run !== ref.run) {
    throw ApplicationFailure.create({ type: EMAIL_FAILURE.superseded, message: 'A newer run of this import exists; this run stops.', nonRetryable: true });
  }
  if (!p.krakenIdentifier) throw new Error('post-import found no account number on a PROCESSED import');
  return { ...p, krakenIdentifier: p.krakenIdentifier, emailCounts: countsFromJson(locked.extra.email_counts) };
}

const scopeOf = (p: ImportProcess, at: Date) => ({ workflowId: p.workflowId, run: p.run, externalAccountNumber: p.externalAccountNumber, at });

/**
 * Post-import customer e-mails (docs/customer-emails.md). The workflow calls, in order:
 * queueCustomerEmails (local), deliverCustomerEmails (a regular activity: heartbeats, retries on
 * temporary SMTP answers), giveUpCustomerEmails when its retries run out, then finishPostImport,
 * which writes post_import.completed or post_import.error from what PostgreSQL recorded.
 * The import stays PROCESSED throughout: only its current_step and these events change.
 */
export function createEmailActivities(deps: EmailActivityDeps) {
  const { db, log } = deps;
  const now = deps.now ?? (() => new Date());

  type Counts = Record<EmailStatus, number>;
  /** lockProcessed's row: its e-mail counts are current until the step writes e-mails. */
  type Locked = ImportProcess & { krakenIdentifier: string; emailCounts: Counts };

  /** queueCustomerEmails under the caller's lock of the PROCESSED row: the account's e-mails by state, or null when post-import already ended. */
  async function queue(trx: Knex, p: Locked): Promise<Counts | null> {
    if (p.currentStep === 'done' || p.currentStep === 'post_import_failed') return null;
    // Most suppliers send no e-mails: the configuration every validation reads (cached for 2 s,
    // docs/operations.md "Operator CLI") says so without a query; a supplier that sends them is read afresh.
    const sends = (await cachedSupplier(db, p.importSupplier, { via: trx }))?.sendCustomerEmails ?? true;
    const supplier = sends ? await getSupplier(trx, p.importSupplier) : null;
    if (supplier?.sendCustomerEmails) {
      const account = await findAccountByExternal(trx, p.importSupplier, p.externalAccountNumber);
      if (!account) throw new Error('post-import found no account for a PROCESSED import');
      await queueEmails(trx, {
        importSupplier: p.importSupplier,
        externalAccountNumber: p.externalAccountNumber,
        accountNumber: account.accountNumber,
        template: WELCOME_TEMPLATE,
        domain: supplier.emailFromAddress?.split('@')[1] ?? 'data-import.invalid',
        users: account.users,
      });
      await setStep(trx, p.id, p.run, 'sending_customer_emails');
      return countEmailsByStatus(trx, { accountNumber: p.krakenIdentifier });
    }
    return p.emailCounts;
  }

  const left = (c: Counts | null) => ({ queued: c?.QUEUED ?? 0, skipped: c?.SKIPPED ?? 0 });

  /** finishPostImport under the caller's lock of the PROCESSED row. */
  async function finish(trx: Knex, p: Locked, known?: Counts): Promise<'completed' | 'error'> {
    if (p.currentStep === 'done' || p.currentStep === 'post_import_failed') return p.currentStep === 'done' ? 'completed' : 'error';
    const counts = known ?? p.emailCounts;
    const failed = counts.FAILED > 0;
    const at = now();
    const total = counts.SENT + counts.BOUNCED + counts.FAILED;
    const event = failed
      ? postImportErrorEvent(scopeOf(p, at), EMAIL_FAILURE.deliveryFailed, `${counts.FAILED} of ${total} customer e-mails could not be delivered (${counts.SENT} sent, ${counts.BOUNCED} bounced); see data-import emails list --account ${p.krakenIdentifier}`)
      : postImportCompletedEvent(scopeOf(p, at), p.krakenIdentifier);
    await enqueueEvents(trx, deps.subjectPrefix, [event], { along: setStepStatement(trx, p.id, p.run, failed ? 'post_import_failed' : 'done') });
    log.info({ importSupplier: p.importSupplier, accountNumber: p.krakenIdentifier, ...counts }, 'post-import finished');
    return failed ? 'error' : 'completed';
  }

  return {
    /** One row per customer: QUEUED, or SKIPPED without an address. Returns what is left to send. */
    async queueCustomerEmails(ref: ImportRef): Promise<{ queued: number; skipped: number }> {
      return db.transaction(async (trx) => {
        return left(await queue(trx, await lockProcessed(trx, ref)));
      });
    },

    /**
     * Sends what is QUEUED; throws (retryably) while any e-mail got a temporary answer or failed for
     * itself (below its attempt bound: an e-mail that keeps failing is set aside, FAILED, and the
     * others of the account go on).
     */
    async deliverCustomerEmails(ref: ImportRef): Promise<{ sent: number; bounced: number }> {
      if (!deps.mail) {
        throw ApplicationFailure.create({ type: EMAIL_FAILURE.relayNotConfigured, message: 'This worker has no mail relay configured.', nonRetryable: true });
      }
      const ctx = Context.current();
      const heartbeat = () => (deps.reachesDatabase?.() === false ? undefined : ctx.heartbeat());
      // Alive from the first moment, whatever it waits for: a connection of the worker's pool (its
      // other activities may hold all of them, each across an SMTP conversation), a lock, a slot.
      // Without it, an attempt waiting for a pool connection sent no heartbeat and Temporal timed
      // it out (20 s) and started another behind the same pool.
      heartbeat();
      const beating = setInterval(heartbeat, 2000);
      try {
        const p = await getProcessById(db, ref.importProcessId);
        if (!p?.krakenIdentifier) throw new Error('customer e-mail delivery found no account number');
        const r = await deliverAccountEmails({ db, subjectPrefix: deps.subjectPrefix, log, now, ...deps.mail, metrics: deps.metrics, heartbeat, sleep: (ms) => ctx.sleep(ms) }, p.krakenIdentifier);
        if (r.failed > 0) {
          throw ApplicationFailure.create({
            type: EMAIL_FAILURE.temporary,
            message: `${r.failed} customer e-mail(s) failed for a reason of their own (not the relay's); retrying (set aside after their last attempt: data-import set-aside list --queue email)`,
          });
        }
        if (r.deferred > 0) {
          throw ApplicationFailure.create({
            type: EMAIL_FAILURE.temporary,
            // Codes only: the relay's answer may name the recipient, which stays out of histories and logs.
            message: `${r.deferred} customer e-mail(s) got a temporary SMTP answer (last code ${r.lastDeferredCode ?? 'none: not reached'}); retrying`,
          });
        }
        return { sent: r.sent, bounced: r.bounced };
      } catch (err) {
        if (err instanceof SenderNotConfiguredError) {
          throw ApplicationFailure.create({ type: EMAIL_FAILURE.senderNotConfigured, message: err.message, nonRetryable: true });
        }
        throw err;
      } finally {
        clearInterval(beating);
      }
    },

    /** Retries ran out (or a permanent configuration error): what is still QUEUED becomes FAILED. */
    async giveUpCustomerEmails(input: ImportRef & { code: string }): Promise<void> {
      await db.transaction(async (trx) => {
        const p = await lockProcessed(trx, input);
        const n = await failQueued(trx, { accountNumber: p.krakenIdentifier }, now());
        log.warn({ importSupplier: p.importSupplier, accountNumber: p.krakenIdentifier, failed: n, code: input.code }, 'customer e-mails failed');
      });
    },

    /**
     * The post-import step of workflows on the 'lean-import-steps' path: queueCustomerEmails and,
     * when nothing is left to send, finishPostImport in the same transaction (one local activity
     * instead of two for every import with no e-mail to deliver).
     */
    async beginPostImport(ref: ImportRef): Promise<{ queued: number; skipped: number; finished?: 'completed' | 'error' }> {
      return db.transaction(async (trx) => {
        const p = await lockProcessed(trx, ref);
        const counts = await queue(trx, p);
        const q = left(counts);
        return q.queued > 0 ? q : { ...q, finished: await finish(trx, p, counts ?? undefined) };
      });
    },

    /** post_import.completed, or post_import.error when any e-mail FAILED; the import stays PROCESSED. */
    async finishPostImport(ref: ImportRef): Promise<{ outcome: 'completed' | 'error' }> {
      return db.transaction(async (trx) => {
        const p = await lockProcessed(trx, ref);
        return { outcome: await finish(trx, p) };
      });
    },
  };
}

export type EmailActivities = ReturnType<typeof createEmailActivities>;
