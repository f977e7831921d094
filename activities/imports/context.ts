import { ApplicationFailure } from '@temporalio/common';
import type { Knex } from 'knex';
import type { Logger } from '../../lib/logger';
import type { Metrics } from '../../lib/metrics';
import type { AccountValidator } from '../../account/validator';
import { IMPORT_FAILURE } from '../../lib/failureCodes';
import { enqueueEvents, EventSchemaError, type NewEvent } from '../../events/outbox';
import { getProcessById, type ImportProcess, type ImportStatus, transitionStatement, type Transition } from '../../imports/store';
import type { EventScope } from '../../imports/events';
import type { JsonLimits } from '../../lib/jsonBounds';
import type { PayloadBudget } from '../../lib/payloadBudget';

/** What the import's activities need; the worker wires it (docs/spec/STYLE.md #3). */
export interface ActivityDeps {
  db: Knex;
  validator: AccountValidator;
  subjectPrefix: string;
  log: Logger;
  metrics?: Metrics;
  /** Bounds the large payloads held at once (worker/main.ts); absent: every payload is read at once. */
  payloadBudget?: PayloadBudget;
  /** The bounds a stored payload is parsed within when read back for validation, as a body is (lib/jsonBounds.ts); absent: parsed unbounded. */
  json?: JsonLimits;
  now?: () => Date;
}

/** The dependencies as every step uses them: the clock resolved. */
export type StepDeps = ActivityDeps & { now: () => Date };

export interface ImportRef {
  importProcessId: string;
  run: number;
}

/**
 * A status in which a run has ended (or, for PROCESSED, has committed its account). Never STAGED:
 * staged data holds a run number no workflow was started for (imports/store.ts restage).
 */
export type SettledStatus = Exclude<ImportStatus, 'STAGED' | 'PENDING' | 'IN_PROGRESS'>;

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

export function settled(p: ImportProcess): Settled {
  return {
    outcome: 'settled',
    status: p.status as SettledStatus,
    accountNumber: p.krakenIdentifier,
    errorCode: p.latestError?.code ?? null,
  };
}

export const scopeOf = (p: ImportProcess, at: Date): EventScope => ({
  workflowId: p.workflowId,
  run: p.run,
  externalAccountNumber: p.externalAccountNumber,
  at,
});

export const logFor = (log: Logger, p: ImportProcess) =>
  log.child({ importSupplier: p.importSupplier, externalAccountNumber: p.externalAccountNumber, workflowId: p.workflowId, run: p.run });

/** The failure of a step whose run is no longer the import's: a newer run stops this one for good. */
export function staleRun(): ApplicationFailure {
  return ApplicationFailure.create({
    type: IMPORT_FAILURE.superseded,
    message: 'A newer run of this import exists; this run stops.',
    nonRetryable: true,
  });
}

/** The import row, locked, if it is still this run's; a newer run stops this one for good. */
export async function lockRun(trx: Knex, ref: ImportRef): Promise<ImportProcess> {
  const p = await getProcessById(trx, ref.importProcessId, { forUpdate: true });
  if (!p || p.run !== ref.run) throw staleRun();
  return p;
}

/** A status change and its events, in the caller's transaction. */
export async function move(
  deps: StepDeps,
  trx: Knex,
  p: ImportProcess,
  status: ImportStatus,
  at: Date,
  extra: Omit<Transition, 'status' | 'at'>,
  events: NewEvent[],
): Promise<void> {
  try {
    // The UPDATE and the events' INSERTs in one statement.
    await enqueueEvents(trx, deps.subjectPrefix, events, { along: transitionStatement(trx, p.id, p.run, { status, at, ...extra }) });
  } catch (err) {
    if (err instanceof EventSchemaError) {
      // A bug in our event building: fail loudly, publish nothing, never retry into the same bug.
      throw ApplicationFailure.create({ type: IMPORT_FAILURE.eventSchema, message: err.message, nonRetryable: true });
    }
    throw err;
  }
  deps.metrics?.importTransitions.inc({ status });
}
