import type { Client } from '@temporalio/client';
import { SpanStatusCode, trace } from '@opentelemetry/api';
import type { Knex } from 'knex';
import type { Logger } from '../lib/logger';
import { PeriodicPass } from '../lib/periodic';
import { findUnstartedRuns, setWorkflowRunId } from './store';
import { startImportWorkflow } from './startWorkflow';
import type { Metrics } from '../lib/metrics';
import { claimItem, itemDone, itemFailed, itemGiveBack } from '../db/stores/queueItems';
import type { QueuePolicy } from '../db/stores/digestQueue';

/**
 * Attempts at starting one stored run before it is set aside, and how long an attempt holds it: a
 * start answers within seconds (Temporal's client retries inside it), and at the default interval
 * (10 s) the three attempts span about half a minute.
 */
export const SWEEPER_QUEUE_POLICY: QueuePolicy = { maxAttempts: 3, leaseMs: 60_000 };

/**
 * Starts the workflows of PENDING runs that have none: the API stores an import and then starts
 * its workflow; if it dies in between (or Temporal was down), the run waits here. Starting is
 * idempotent, so racing the API is harmless.
 *
 * One run it cannot start never stops the others (issue 47, item 4): each run's attempt is recorded
 * before its start (db/stores/queueItems.ts), a failure is recorded with its reason and the pass goes
 * on to the next run; after `policy.maxAttempts` failed (or unfinished) attempts the run is set
 * aside, named by `data-import set-aside list` (queue "sweeper") until an operator retries it. A start
 * that failed because Temporal did not answer (unavailable, deadline exceeded, overloaded) is an
 * outage, not the run's: its attempt is given back and the pass ends.
 */
export class UnstartedRunSweeper {
  private readonly periodic: PeriodicPass;

  constructor(
    private readonly o: {
      db: Knex;
      temporal: Client;
      taskQueue: string;
      log: Logger;
      intervalMs?: number;
      graceSeconds?: number;
      metrics?: Pick<Metrics, 'queueItemFailures' | 'queueItemsSetAside'>;
      policy?: QueuePolicy;
    },
  ) {
    this.periodic = new PeriodicPass(() => this.sweep(), o.intervalMs ?? 10_000, (err) => o.log.warn({ err: String(err) }, 'sweeper pass failed'));
  }

  start(): void {
    this.periodic.start();
  }

  stop(): Promise<void> {
    return this.periodic.stop();
  }

  /** One pass; the runs it started. */
  async sweep(): Promise<number> {
    const policy = this.o.policy ?? SWEEPER_QUEUE_POLICY;
    const runs = await findUnstartedRuns(this.o.db, this.o.graceSeconds ?? 15);
    let started = 0;
    for (const p of runs) {
      const item = `${p.id}:${p.run}`;
      const claim = await claimItem(this.o.db, 'sweeper', item, { importSupplier: p.importSupplier, externalAccountNumber: p.externalAccountNumber }, policy);
      if (!claim.taken) {
        if (claim.setAside) this.setAside(p.workflowId, item);
        continue;
      }
      // With tracing on, the import's trace begins here (its create request's trace ended with
      // the API that died before starting it): the start, its statements and the run are one trace.
      const failure = await trace.getTracer('data-import').startActiveSpan('sweeper start', { attributes: { temporalWorkflowId: p.workflowId, 'data_import.run': p.run } }, async (span) => {
        try {
          const runId = await startImportWorkflow(this.o.temporal, this.o.taskQueue, p);
          await setWorkflowRunId(this.o.db, p.id, p.run, runId);
          this.o.log.info({ workflowId: p.workflowId, run: p.run }, 'started the workflow of a stored import');
          return null;
        } catch (err) {
          span.setStatus({ code: SpanStatusCode.ERROR, message: String(err) });
          return err;
        } finally {
          span.end();
        }
      });
      if (failure === null) {
        started++;
        await itemDone(this.o.db, 'sweeper', item);
        continue;
      }
      if (isTemporalOutage(failure)) {
        // Temporal did not answer: no run can start now, and it is not this run's fault.
        await itemGiveBack(this.o.db, 'sweeper', item);
        this.o.log.warn({ workflowId: p.workflowId, err: String(failure) }, 'sweeper: Temporal did not answer; the next pass tries again');
        break;
      }
      this.o.metrics?.queueItemFailures.inc({ queue: 'sweeper' });
      this.o.log.warn({ workflowId: p.workflowId, run: p.run, err: String(failure) }, 'sweeper could not start the workflow of a stored import; the others go on');
      if (await itemFailed(this.o.db, 'sweeper', item, String(failure), policy)) this.setAside(p.workflowId, item);
    }
    return started;
  }

  private setAside(workflowId: string, item: string): void {
    this.o.metrics?.queueItemsSetAside.inc({ queue: 'sweeper' });
    this.o.log.error({ workflowId, item }, 'sweeper set a stored import aside after its last attempt (data-import set-aside list)');
  }
}

/** gRPC codes of a server that did not take the call (UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, CANCELLED). */
const OUTAGE_CODES = new Set([14, 4, 8, 1]);

/** Whether a failed start says Temporal could not be reached, rather than refusing this run. */
export function isTemporalOutage(err: unknown): boolean {
  for (let e = err as { code?: unknown; cause?: unknown; name?: string } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'number' && OUTAGE_CODES.has(e.code)) return true;
    if (e.name === 'TransportError' || e.name === 'ConnectionError') return true;
  }
  return false;
}
