import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import type { Logger } from '../lib/logger';
import { findUnstartedRuns, setWorkflowRunId } from './store';
import { startImportWorkflow } from './startWorkflow';

/**
 * Starts the workflows of PENDING runs that have none: the API stores an import and then starts
 * its workflow; if it dies in between (or Temporal was down), the run waits here. Starting is
 * idempotent, so racing the API is harmless.
 */
export class UnstartedRunSweeper {
  private timer: NodeJS.Timeout | null = null;
  private busy: Promise<void> | null = null;

  constructor(
    private readonly o: { db: Knex; temporal: Client; taskQueue: string; log: Logger; intervalMs?: number; graceSeconds?: number },
  ) {}

  start(): void {
    const tick = () => {
      this.busy = this.sweep()
        .then(() => undefined)
        .catch((err) => this.o.log.warn({ err: String(err) }, 'sweeper pass failed'))
        .finally(() => {
          this.busy = null;
          if (this.timer !== null) this.timer = setTimeout(tick, this.o.intervalMs ?? 10_000);
        });
    };
    this.timer = setTimeout(tick, this.o.intervalMs ?? 10_000);
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.busy;
  }

  async sweep(): Promise<number> {
    const runs = await findUnstartedRuns(this.o.db, this.o.graceSeconds ?? 15);
    for (const p of runs) {
      const runId = await startImportWorkflow(this.o.temporal, this.o.taskQueue, p);
      await setWorkflowRunId(this.o.db, p.id, p.run, runId);
      this.o.log.info({ workflowId: p.workflowId, run: p.run }, 'started the workflow of a stored import');
    }
    return runs.length;
  }
}
