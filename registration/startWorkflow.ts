import type { Client } from '@temporalio/client';
import { registrationFlows } from '../workflows/registrationFlows';
import { ExternalAccountNumberKey, ImportSupplierKey } from '../workflows/searchAttributes';
import type { RegistrationOutcome, RegistrationRequest } from './types';
import { escapeMarkdown as md } from '../workflows/markdown';

/**
 * Runs one send-registration-flows request as its workflow and waits for the answer. A
 * concurrent identical request joins the running one and gets its answer; once it has closed, a
 * repeat starts a new run, which answers from the marks already made. A failed workflow throws
 * the client's WorkflowFailedError.
 */
export async function runRegistrationFlows(client: Client, taskQueue: string, workflowId: string, input: RegistrationRequest): Promise<RegistrationOutcome> {
  // Started by the function, not a string, like the import (imports/startWorkflow.ts): the
  // compiler checks `args` against its input, and its name is the workflow type histories carry.
  return client.workflow.execute(registrationFlows, {
    workflowId,
    taskQueue,
    args: [input],
    workflowIdConflictPolicy: 'USE_EXISTING',
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    typedSearchAttributes: [
      { key: ImportSupplierKey, value: input.importSupplier },
      { key: ExternalAccountNumberKey, value: input.externalAccountNumber },
    ],
    // The caller's values are escaped: the UI renders the summary as Markdown (workflows/markdown.ts).
    staticSummary: `Registration flows for account ${md(input.externalAccountNumber)} of ${md(input.importSupplier)} from ${input.supplyStartDate ? md(input.supplyStartDate) : 'the earliest valid date'}`,
  });
}
