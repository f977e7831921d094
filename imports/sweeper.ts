import type { Client } from '@temporalio/client';
import { SpanStatusCode, trace } from '@opentelemetry/api';
import type { Knex } from 'knex';
import type { Logger } from '../lib/logger';
import { PeriodicPass } from '../lib/periodic';
import { findUnstartedRuns, setWorkflowRunId } from './store';
import { startImportWorkflow } from './startWorkflow';

/**
 * Starts the workflows of PENDING runs that have none: the API stores an import and then starts
 * its workflow; if it dies in between (or Temporal was down), the run waits here. Starting is
 * idempotent, so racing the API is harmless.
 */
export class UnstartedRunSweeper {
  private readonly periodic: PeriodicPass;

  constructor(
    private readonly o: { db: Knex; temporal: Client; taskQueue: string; log: Logger; intervalMs?: number; graceSeconds?: number },
  ) {
    this.periodic = new PeriodicPass(() => this.sweep(), o.intervalMs ?? 10_000, (err) => o.log.warn({ err: String(err) }, 'sweeper pass failed'));
  }

  start(): void {
    this.periodic.start();
  }

  stop(): Promise<void> {
    return this.periodic.stop();
  }

  async sweep(): Promise<number> {
    const runs = await findUnstartedRuns(this.o.db, this.o.graceSeconds ?? 15);
    for (const p of runs) {
      // With tracing on, the import's trace begins here (its create request's trace ended with
      // the API that died before starting it): the start, its statements and the run are one trace.
      await trace.getTracer('data-import').startActiveSpan('sweeper start', { attributes: { temporalWorkflowId: p.workflowId, 'data_import.run': p.run } }, async (span) => {
        try {
          const runId = await startImportWorkflow(this.o.temporal, this.o.taskQueue, p);
          await setWorkflowRunId(this.o.db, p.id, p.run, runId);
          this.o.log.info({ workflowId: p.workflowId, run: p.run }, 'started the workflow of a stored import');
        } catch (err) {
          span.setStatus({ code: SpanStatusCode.ERROR, message: String(err) });
          throw err;
        } finally {
          span.end();
        }
      });
    }
    return runs.length;
  }
}
