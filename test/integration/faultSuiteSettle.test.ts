/**
 * The fault suite checks its invariants once the book has ended (test/faults/invariants.ts): the
 * database final, and every execution closed. waitForClosed against the real Temporal server: an
 * execution that no worker runs keeps it waiting, and it reports that execution at its deadline;
 * once the execution closes it returns.
 */
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { waitForClosed } from '../faults/invariants';
import { StepsDatabase, stepsDatabase, storeRun } from '../support/importRuns';
import { importWorkflowId } from '../../imports/workflowId';
import { TEST_TEMPORAL_ADDRESS } from '../support/env';

describe('the fault suite waits for every execution to close', () => {
  let s: StepsDatabase;
  let connection: Connection;
  let temporal: Client;

  beforeAll(async () => {
    s = await stepsDatabase();
    connection = await Connection.connect({ address: TEST_TEMPORAL_ADDRESS });
    temporal = new Client({ connection });
  });
  afterAll(async () => {
    await connection.close();
    await s.drop();
  });

  it('reports an execution still open at the deadline, and returns once it closed', async () => {
    const ext = `SETTLE-${randomUUID().slice(0, 8)}`;
    const workflowId = importWorkflowId('DEMO_ENERGY', ext);
    // A task queue no worker polls: the execution stays RUNNING, as one whose worker was killed
    // after its last step committed stays until its workflow task times out.
    await temporal.workflow.start('accountImport', { workflowId, taskQueue: `nobody-${ext}`, args: [{}] });
    await storeRun(s.t.db, ext);
    await expect(waitForClosed(s.t.db, temporal, 'DEMO_ENERGY', [ext], 1500)).rejects.toThrow(workflowId);
    const settled = waitForClosed(s.t.db, temporal, 'DEMO_ENERGY', [ext], 30_000);
    await temporal.workflow.getHandle(workflowId).terminate('closed by the test');
    await expect(settled).resolves.toBeUndefined();
  });
});
