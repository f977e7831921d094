import { ApplicationFailure } from '@temporalio/common';
import { Context } from '@temporalio/activity';
import type { Knex } from 'knex';
import type { Logger } from '../../lib/logger';
import type { Metrics } from '../../lib/metrics';
import type { AccountValidator } from '../../account/validator';
import { enqueueEvents, EventSchemaError, NewEvent } from '../../events/outbox';
import { findAccountByExternal, insertAccount, newAccountNumber } from '../../db/stores/accountStore';
import { getPayload, getProcessById, ImportProcess, ImportStatus, transition } from '../store';
import { getSupplier } from '../../suppliers/store';
import {
  accountCreatedEvents,
  cancelledEvent,
  dryRunCompleteEvent,
  errorEvent,
  EventScope,
  postImportCompletedEvent,
  postImportErrorEvent,
} from '../events';
import type { Account } from '../../account/schema';

export interface ActivityDeps {
  db: Knex;
  validator: AccountValidator;
  subjectPrefix: string;
  log: Logger;
  metrics?: Metrics;
  now?: () => Date;
}

export interface ImportRef {
  importProcessId: string;
  run: number;
}

/** A status in which a run has ended (or, for PROCESSED, has committed its account). */
export type SettledStatus = Exclude<ImportStatus, 'PENDING' | 'IN_PROGRESS'>;

/**
 * What a step found when the run had already moved past it: a worker that died before its
 * workflow task completed leaves no record of the local activities it ran, so on replay a step
 * may find its own run's work done. The workflow then ends (or, for PROCESSED, goes on to
 * post-import) in exactly this status.
 */
export interface Settled {
  outcome: 'settled';
  status: SettledStatus;
  accountNumber: string | null;
  errorCode: string | null;
}

function settled(p: ImportProcess): Settled {
  return {
    outcome: 'settled',
    status: p.status as SettledStatus,
    accountNumber: p.krakenIdentifier,
    errorCode: p.latestError?.code ?? null,
  };
}

/** Stable failure types (ApplicationFailure.type); they become latest_error.code. */
export const FAILURE = {
  validation: 'import_process_failed_validation',
  creation: 'import_process_creation_failed',
  cancelled: 'import_process_cancelled',
  superseded: 'import_process_superseded',
  eventSchema: 'event_schema_violation',
  postImport: 'post_import_failed',
  /** A step found its run already ended by another attempt; recordFailure reports that end. */
  settled: 'import_process_already_settled',
} as const;

const MAX_DETAIL_ISSUES = 10;

/** PostgreSQL errors about the data (class 22 data exception, 23 integrity) will not heal by retrying. */
function isDataError(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && /^(22|23)/.test(code);
}

const sentinelRollback = Symbol('dry-run rollback');

/**
 * Heartbeats every few seconds while `fn` runs, so a worker that dies mid-activity is noticed
 * within the heartbeat timeout (not the whole start-to-close timeout) and the activity retried.
 * Outside an activity (direct calls in tests) it just runs `fn`.
 */
async function withHeartbeat<T>(fn: () => Promise<T>): Promise<T> {
  let ctx: Context | undefined;
  try {
    ctx = Context.current();
  } catch {
    return fn();
  }
  // A local activity cannot heartbeat: the workflow task it runs in is kept alive by the SDK.
  if (ctx.info.isLocal) return fn();
  ctx.heartbeat();
  const timer = setInterval(() => ctx!.heartbeat(), 2000);
  try {
    return await fn();
  } finally {
    clearInterval(timer);
  }
}

/**
 * The import's activities (STYLE.md #3: built by a factory; the worker wires the dependencies).
 * Every write is idempotent: the import row is locked and its run checked, so a retried activity
 * either finds its work done or does it once.
 */
export function createActivities(deps: ActivityDeps) {
  const { db, log } = deps;
  const now = deps.now ?? (() => new Date());

  const scopeOf = (p: ImportProcess, at: Date): EventScope => ({
    workflowId: p.workflowId,
    run: p.run,
    externalAccountNumber: p.externalAccountNumber,
    at,
  });

  async function lockRun(trx: Knex, ref: ImportRef): Promise<ImportProcess> {
    const p = await getProcessById(trx, ref.importProcessId, { forUpdate: true });
    if (!p || p.run !== ref.run) {
      throw ApplicationFailure.create({
        type: FAILURE.superseded,
        message: 'A newer run of this import exists; this run stops.',
        nonRetryable: true,
      });
    }
    return p;
  }

  async function move(trx: Knex, p: ImportProcess, status: ImportStatus, at: Date, extra: Omit<Parameters<typeof transition>[3], 'status' | 'at'>, events: NewEvent[]) {
    await transition(trx, p.id, p.run, { status, at, ...extra });
    try {
      await enqueueEvents(trx, deps.subjectPrefix, events);
    } catch (err) {
      if (err instanceof EventSchemaError) {
        // A bug in our event building: fail loudly, publish nothing, never retry into the same bug.
        throw ApplicationFailure.create({ type: FAILURE.eventSchema, message: err.message, nonRetryable: true });
      }
      throw err;
    }
    deps.metrics?.importTransitions.inc({ status });
  }

  const logFor = (p: ImportProcess) =>
    log.child({ importSupplier: p.importSupplier, externalAccountNumber: p.externalAccountNumber, workflowId: p.workflowId, run: p.run });

  /** The whole creation inside a transaction that is rolled back: proves it would commit. */
  async function dryRun(ref: ImportRef): Promise<void> {
    const payload = (await getPayload(db, ref.importProcessId)) as Account;
    try {
      await db.transaction(async (trx) => {
        const p = await lockRun(trx, ref);
        await insertAccount(trx, {
          importSupplier: p.importSupplier,
          externalAccountNumber: p.externalAccountNumber,
          accountNumber: newAccountNumber(),
          account: payload,
        });
        throw sentinelRollback;
      });
    } catch (err) {
      if (err === sentinelRollback) return;
      if (isDataError(err)) {
        throw ApplicationFailure.create({ type: FAILURE.creation, message: `The account could not be created: ${(err as Error).message}`, nonRetryable: true });
      }
      throw err;
    }
  }

  async function create(ref: ImportRef): Promise<{ accountNumber: string }> {
    const payload = (await getPayload(db, ref.importProcessId)) as Account;
    try {
      return await db.transaction(async (trx) => {
        const p = await lockRun(trx, ref);
        if (p.status === 'PROCESSED' && p.krakenIdentifier) return { accountNumber: p.krakenIdentifier };
        if (p.status === 'CANCELLED') {
          throw ApplicationFailure.create({ type: FAILURE.cancelled, message: 'The import was cancelled before the account was created.', nonRetryable: true });
        }
        if (p.status !== 'IN_PROGRESS') {
          // Another attempt of this run already recorded its end (ERRORED, say): never overwrite it.
          throw ApplicationFailure.create({ type: FAILURE.settled, message: `This run already ended ${p.status}.`, nonRetryable: true });
        }
        const existing = await findAccountByExternal(trx, p.importSupplier, p.externalAccountNumber);
        const at = now();
        const created =
          existing ??
          (await insertAccount(trx, {
            importSupplier: p.importSupplier,
            externalAccountNumber: p.externalAccountNumber,
            accountNumber: newAccountNumber(),
            account: payload,
          }));
        await move(trx, p, 'PROCESSED', at, { step: 'post_import', krakenIdentifier: created.accountNumber, error: null }, accountCreatedEvents(scopeOf(p, at), created));
        logFor(p).info({ accountNumber: created.accountNumber }, 'account created');
        return { accountNumber: created.accountNumber };
      });
    } catch (err) {
      if (isDataError(err) && (err as { constraint?: string }).constraint !== 'accounts_number_unique') {
        throw ApplicationFailure.create({ type: FAILURE.creation, message: `The account could not be created: ${(err as Error).message}`, nonRetryable: true });
      }
      throw err;
    }
  }

  return {
    /**
     * PENDING → IN_PROGRESS, unless the window has already ended. Run again for the same run (a
     * replay after a worker died), it continues from what it finds: IN_PROGRESS goes on, any later
     * status is reported as settled. Only another run number is stale.
     */
    async startImport(ref: ImportRef): Promise<{ outcome: 'ok' | 'stale' | 'window_expired' } | Settled> {
      return db.transaction(async (trx) => {
        const p = await getProcessById(trx, ref.importProcessId, { forUpdate: true });
        if (!p || p.run !== ref.run) return { outcome: 'stale' as const };
        if (p.status === 'IN_PROGRESS') return { outcome: 'ok' as const }; // this activity, retried
        if (p.status !== 'PENDING') return settled(p);
        const at = now();
        if (at.getTime() > p.scheduleWindowEnd.getTime()) return { outcome: 'window_expired' as const };
        await move(trx, p, 'IN_PROGRESS', at, { step: 'validating' }, []);
        logFor(p).info('import started');
        return { outcome: 'ok' as const };
      });
    },

    /** Re-validates the stored payload with today's rules and reference data. */
    async validateImport(ref: ImportRef): Promise<void> {
      const payload = await getPayload(db, ref.importProcessId);
      const outcome = await deps.validator.validate(payload, { mode: 'create' });
      if (!outcome.ok) {
        const shown = outcome.errors
          .slice(0, MAX_DETAIL_ISSUES)
          .map((e) => `${e.code} at ${e.attr}`)
          .join('; ');
        const more = outcome.errors.length > MAX_DETAIL_ISSUES ? ` (and ${outcome.errors.length - MAX_DETAIL_ISSUES} more)` : '';
        throw ApplicationFailure.create({
          type: FAILURE.validation,
          message: `The account failed validation: ${shown}${more}. Run the validate operation for full details.`,
          nonRetryable: true,
          details: [outcome.errors.slice(0, 50)],
        });
      }
    },

    async dryRunImport(ref: ImportRef): Promise<void> {
      return withHeartbeat(() => dryRun(ref));
    },

    /**
     * One transaction: the account, PROCESSED with kraken_identifier, and every event of the
     * creation. Idempotent: a retry after a commit finds PROCESSED and returns the same account.
     */
    async createAccount(ref: ImportRef): Promise<{ accountNumber: string }> {
      return withHeartbeat(() => create(ref));
    },
    async completeDryRun(ref: ImportRef): Promise<Settled | void> {
      return db.transaction(async (trx) => {
        const p = await lockRun(trx, ref);
        if (p.status === 'DRY_RUN_SUCCEEDED') return; // this activity, retried
        if (p.status !== 'IN_PROGRESS') return settled(p); // an earlier attempt of this run ended it
        const at = now();
        await move(trx, p, 'DRY_RUN_SUCCEEDED', at, { step: 'done', error: null }, [dryRunCompleteEvent(scopeOf(p, at))]);
      });
    },

    /**
     * ERRORED (or DRY_RUN_ERRORED) with latest_error, unless the run already ended otherwise: a
     * cancel got there first, the account was committed by an earlier attempt (the workflow goes
     * on to post-import), or an earlier attempt already recorded the end.
     */
    async recordFailure(
      input: ImportRef & { code: string; detail: string; dryRun: boolean },
    ): Promise<{ outcome: 'recorded' | 'cancelled' } | { outcome: 'processed'; accountNumber: string } | Settled> {
      return db.transaction(async (trx) => {
        const p = await lockRun(trx, input);
        if (p.status === 'CANCELLED') return { outcome: 'cancelled' as const };
        if (p.status === 'PROCESSED') return { outcome: 'processed' as const, accountNumber: p.krakenIdentifier! };
        if (p.status !== 'IN_PROGRESS') return settled(p);
        const status: ImportStatus = input.dryRun ? 'DRY_RUN_ERRORED' : 'ERRORED';
        const at = now();
        const error = { code: input.code, detail: input.detail, domain: 'import_process' as const };
        await move(trx, p, status, at, { step: 'done', error }, [errorEvent(scopeOf(p, at), input.dryRun, input.code, input.detail)]);
        logFor(p).warn({ code: input.code }, 'import failed');
        return { outcome: 'recorded' as const };
      });
    },

    /** CANCELLED with its event; too late once the account is committed, or once the run ended. */
    async cancelImport(
      input: ImportRef & { reason: 'operator' | 'window_expired' },
    ): Promise<{ outcome: 'cancelled' } | { outcome: 'too_late'; accountNumber: string } | Settled> {
      return db.transaction(async (trx) => {
        const p = await lockRun(trx, input);
        if (p.status === 'PROCESSED') return { outcome: 'too_late' as const, accountNumber: p.krakenIdentifier! };
        if (p.status === 'CANCELLED') return { outcome: 'cancelled' as const };
        if (p.status !== 'PENDING' && p.status !== 'IN_PROGRESS') return settled(p);
        const at = now();
        await move(trx, p, 'CANCELLED', at, { step: input.reason === 'operator' ? 'cancelled_by_operator' : 'window_expired' }, [cancelledEvent(scopeOf(p, at), p.scheduleWindowEnd)]);
        logFor(p).info({ reason: input.reason }, 'import cancelled');
        return { outcome: 'cancelled' as const };
      });
    },

    /** Supplier-configured follow-ups: customer emails queued when the supplier turns them on. */
    async postImport(ref: ImportRef): Promise<{ outcome: 'completed' | 'failed' }> {
      return db.transaction(async (trx) => {
        const p = await lockRun(trx, ref);
        // Run again after a crash: the follow-ups' outcome is already recorded, with its event.
        if (p.currentStep === 'done') return { outcome: 'completed' as const };
        if (p.currentStep === 'post_import_failed') return { outcome: 'failed' as const };
        const supplier = await getSupplier(trx, p.importSupplier);
        const accountNumber = p.krakenIdentifier;
        if (!accountNumber) throw new Error('post-import found no account number on a PROCESSED import');
        if (supplier?.sendCustomerEmails) {
          // Only this follow-up needs the users: read them only when it is on.
          const account = await findAccountByExternal(trx, p.importSupplier, p.externalAccountNumber);
          if (!account) throw new Error('post-import found no account for a PROCESSED import');
          const rows = account.users
            .filter((u) => u.email)
            .map((u) => ({ account_number: account.accountNumber, user_number: u.userNumber, email: u.email!, template: 'migration_welcome' }));
          if (rows.length > 0) await trx('customer_email_queue').insert(rows).onConflict(['account_number', 'user_number', 'template']).ignore();
        }
        const at = now();
        await trx('import_processes').where({ id: p.id, run: p.run }).update({ current_step: 'done' });
        await enqueueEvents(trx, deps.subjectPrefix, [postImportCompletedEvent(scopeOf(p, at), accountNumber)]);
        return { outcome: 'completed' as const };
      });
    },

    async recordPostImportError(input: ImportRef & { code: string; detail: string }): Promise<void> {
      await db.transaction(async (trx) => {
        const p = await lockRun(trx, input);
        if (p.currentStep === 'done' || p.currentStep === 'post_import_failed') return;
        const at = now();
        await trx('import_processes').where({ id: p.id, run: p.run }).update({ current_step: 'post_import_failed' });
        await enqueueEvents(trx, deps.subjectPrefix, [postImportErrorEvent(scopeOf(p, at), input.code, input.detail)]);
      });
    },
  };
}

export type ImportActivities = ReturnType<typeof createActivities>;
