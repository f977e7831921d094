import { Client, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { ImportProcess } from './store';
import { accountImport, type AccountImportInput } from '../workflows/accountImport';
import { ExternalAccountNumberKey, ImportStatusKey, ImportSupplierKey } from '../workflows/searchAttributes';
import { activeTrace } from '../lib/traceContext';
import { escapeMarkdown as md } from '../workflows/markdown';

/**
 * Starts the workflow of one run of an import. Idempotent: starting a run whose workflow already
 * runs returns that one (a retried start, or the sweeper racing the API); the run number in the
 * memo tells them apart. The id reuse policy allows a new run after the previous one closed; the
 * database decides whether a new run is allowed at all, so two runs never act at once.
 *
 * With tracing on (docs/tracing.md) the start is a span of the caller's trace (the create
 * request's), whose id the memo keeps as `traceId` (and the UI's details show): `temporal workflow
 * describe -w <workflow id>` finds the trace of an import.
 */
export async function startImportWorkflow(client: Client, taskQueue: string, p: ImportProcess): Promise<string> {
  const input: AccountImportInput = {
    importProcessId: p.id,
    run: p.run,
    importSupplier: p.importSupplier,
    externalAccountNumber: p.externalAccountNumber,
    isDryRun: p.isDryRun,
    scheduleWindowStart: p.scheduleWindowStart.toISOString(),
    scheduleWindowEnd: p.scheduleWindowEnd.toISOString(),
  };
  for (let attempt = 0; ; attempt++) {
    try {
      return await start(client, taskQueue, p, input);
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      const handle = client.workflow.getHandle(p.workflowId);
      const d = await handle.describe();
      if (d.memo?.run === p.run && d.memo?.importProcessId === p.id) return d.runId; // this very run is already going
      // Another execution holds the id: the previous run's workflow still closing (its outcome
      // is already recorded in the database), or one left over from a database that no longer
      // exists. Give it a moment, then end it: the database says which run may act.
      if (attempt < 20) {
        await new Promise((r) => setTimeout(r, 100));
        continue;
      }
      await handle.terminate(`superseded by run ${p.run}`).catch(() => undefined);
    }
  }
}

async function start(client: Client, taskQueue: string, p: ImportProcess, input: AccountImportInput): Promise<string> {
  const trace = activeTrace();
  // Started by the function, not a string: the compiler checks `args` against its input, and its
  // name is the workflow type ('accountImport') that recorded histories and running workflows carry.
  const handle = await client.workflow.start(accountImport, {
    workflowId: p.workflowId,
    taskQueue,
    args: [input],
    memo: { run: p.run, importProcessId: p.id, ...(trace && { traceId: trace.id, traceSampled: trace.sampled }) },
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    workflowIdConflictPolicy: 'FAIL',
    typedSearchAttributes: [
      { key: ImportSupplierKey, value: p.importSupplier },
      { key: ExternalAccountNumberKey, value: p.externalAccountNumber },
      { key: ImportStatusKey, value: 'PENDING' },
    ],
    // The caller's values are escaped: the UI renders these as Markdown (workflows/markdown.ts).
    staticSummary: `Import of account ${md(p.externalAccountNumber)} for ${md(p.importSupplier)}${p.isDryRun ? ' (dry run)' : ''}`,
    staticDetails: `Import supplier: **${md(p.importSupplier)}**\n\nExternal account number: **${md(p.externalAccountNumber)}**\n\nRun: ${p.run}${p.isDryRun ? ' (dry run)' : ''}\n\nSchedule window: ${input.scheduleWindowStart} – ${input.scheduleWindowEnd}${trace ? `\n\nTrace: ${trace.id}${trace.sampled ? '' : ' (not sampled)'}` : ''}`,
  });
  return handle.firstExecutionRunId;
}
