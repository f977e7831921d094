import type { Command } from 'commander';
import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/client';
import { ACTIVE, findProcess, type ImportProcess } from '../../imports/store';
import { startImportWorkflow } from '../../imports/startWorkflow';
import { print, withDb, withTemporal } from '../context';
import { json, table, withExamples } from '../format';

/**
 * `data-import imports resume-restored`: after a restore of the database (docs/operations.md,
 * "Backups and restore"), the imports it holds open — PENDING, IN_PROGRESS, or PROCESSED with their
 * post-import follow-ups not finished — had their workflows on the Temporal of the lost
 * deployment. Each one whose workflow the configured Temporal does not run is started again there
 * for the same run: every step continues from what the database holds (a committed account is
 * found by its create step, a PROCESSED import goes straight to its follow-ups). An import whose
 * run this Temporal runs is left alone, so the command is safe to repeat, and on a live deployment
 * it starts nothing.
 */

type Action = 'started' | 'running';

interface Resumed {
  import_supplier: string;
  external_account_number: string;
  status: string;
  current_step: string | null;
  run: number;
  action: Action;
  workflow_run_id: string | null;
}

/** Whether this Temporal runs this very run of the import (its memo names the run). */
async function runsHere(client: Client, p: ImportProcess): Promise<boolean> {
  try {
    const d = await client.workflow.getHandle(p.workflowId).describe();
    return d.status.name === 'RUNNING' && d.memo?.run === p.run && d.memo?.importProcessId === p.id;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

export function registerResumeRestored(group: Command): void {
  withExamples(
    group
      .command('resume-restored')
      .description(
        'After a restore of the database onto a Temporal that does not run its imports (docs/operations.md, "Backups and restore"): ' +
          'start again, each for its own run, every import the database holds open (PENDING, IN_PROGRESS, or PROCESSED with its follow-ups not done) ' +
          'whose workflow this Temporal does not run; imports it runs are left alone. Prints each import and what was done (started / running). Exit 0.',
      )
      .option('--supplier <code>', 'only imports of this import supplier')
      .option('--dry-run', 'print what would be started, start nothing')
      .option('--json', 'print {"started": [...], "running": [...]} (each an import) instead of a table'),
    ['data-import imports resume-restored --dry-run', 'data-import imports resume-restored --supplier DEMO_ENERGY', 'data-import imports resume-restored --json'],
  ).action(async (opts: { supplier?: string; dryRun?: boolean; json?: boolean }) => {
    await withDb(async (db, config) => {
      const q = db('import_processes')
        .select('import_supplier', 'external_account_number')
        .where((w) => w.whereIn('status', [...ACTIVE]).orWhere((w2) => w2.where({ status: 'PROCESSED' }).whereNotIn('current_step', ['done', 'post_import_failed'])))
        .orderBy('id');
      if (opts.supplier) q.where({ import_supplier: opts.supplier });
      const open = (await q) as { import_supplier: string; external_account_number: string }[];
      const done: Resumed[] = [];
      await withTemporal(async (client) => {
        for (const o of open) {
          const p = await findProcess(db, o.import_supplier, o.external_account_number);
          if (!p) continue;
          const row = { import_supplier: p.importSupplier, external_account_number: p.externalAccountNumber, status: p.status, current_step: p.currentStep, run: p.run };
          if (await runsHere(client, p)) {
            done.push({ ...row, action: 'running', workflow_run_id: p.workflowRunId });
            continue;
          }
          if (opts.dryRun) {
            done.push({ ...row, action: 'started', workflow_run_id: null });
            continue;
          }
          const runId = await startImportWorkflow(client, config.temporal.taskQueue, p);
          await db('import_processes').where({ id: p.id, run: p.run }).update({ workflow_run_id: runId });
          done.push({ ...row, action: 'started', workflow_run_id: runId });
        }
      });
      if (opts.json) {
        return print(json({ started: done.filter((d) => d.action === 'started'), running: done.filter((d) => d.action === 'running'), dry_run: opts.dryRun === true }));
      }
      print(
        table(
          ['SUPPLIER', 'EXTERNAL ACCOUNT', 'STATUS', 'STEP', 'RUN', opts.dryRun ? 'WOULD BE' : 'ACTION'],
          done.map((d) => [d.import_supplier, d.external_account_number, d.status, d.current_step, d.run, d.action]),
          '(no open imports)',
        ),
      );
      const started = done.filter((d) => d.action === 'started').length;
      print(`${opts.dryRun ? 'would start' : 'started'} ${started}, already running here ${done.length - started}`);
    });
  });
}
