import request from 'supertest';
import { WorkflowFailedError } from '@temporalio/client';
import { eventually, startStack, Stack } from '../support/stack';
import { uniqueAccount } from '../support/fixtures';
import { importWorkflowId } from '../../imports/workflowId';
import type { ImportRef } from '../../activities/imports';

/** A gate an activity waits at until the test opens it. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  let reached!: () => void;
  const arrived = new Promise<void>((r) => (reached = r));
  return { open, opened, reached, arrived };
}

describe('cancelling an import around the commit of its account', () => {
  let s: Stack;
  const api = () => s.request();
  const status = async (ext: string) => (await api().get(`/v2/data-import/accounts/DEMO_ENERGY/${ext}/`)).body;
  const accountRows = async (ext: string) =>
    Number((await s.t.db('accounts').where({ external_account_number: ext }).count<{ count: string }[]>('* as count'))[0]!.count);

  beforeAll(async () => {
    s = await startStack({ worker: false });
  });
  afterAll(async () => {
    await s.stop();
  });
  afterEach(async () => {
    await s.stopWorker();
  });

  it('leaves no account when the cancel arrives before the create transaction commits', async () => {
    const ext = s.ext('CANCEL-BEFORE');
    const g = gate();
    await s.startWorker({
      activities: (a) => ({
        ...a,
        createAccount: async (ref: ImportRef) => {
          g.reached();
          await g.opened; // the cancel is recorded while the create has not started its transaction
          return a.createAccount(ref);
        },
      }),
    });
    expect((await api().post('/v2/data-import/accounts/').send(uniqueAccount(ext))).status).toBe(201);
    await g.arrived;
    const handle = s.client.workflow.getHandle(importWorkflowId('DEMO_ENERGY', ext));
    await handle.cancel();
    await eventually(async () => (await status(ext)).status === 'CANCELLED');
    g.open();
    await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    // The late create found CANCELLED under the row lock and wrote nothing.
    await new Promise((r) => setTimeout(r, 500));
    expect((await status(ext)).status).toBe('CANCELLED');
    expect(await accountRows(ext)).toBe(0);
  });

  it('keeps the import PROCESSED when the cancel arrives after the account was committed', async () => {
    const ext = s.ext('CANCEL-AFTER');
    const g = gate();
    await s.startWorker({
      activities: (a) => ({
        ...a,
        createAccount: async (ref: ImportRef) => {
          const result = await a.createAccount(ref);
          g.reached();
          await g.opened; // committed, not yet reported to Temporal
          return result;
        },
      }),
    });
    expect((await api().post('/v2/data-import/accounts/').send(uniqueAccount(ext))).status).toBe(201);
    await g.arrived;
    const handle = s.client.workflow.getHandle(importWorkflowId('DEMO_ENERGY', ext));
    await handle.cancel();
    const outcome = await handle.result();
    g.open();
    expect(outcome).toMatchObject({ status: 'PROCESSED', accountNumber: expect.stringMatching(/^A-/) });
    const record = await status(ext);
    expect(record).toMatchObject({ status: 'PROCESSED', kraken_identifier: (outcome as { accountNumber: string }).accountNumber });
    expect(await accountRows(ext)).toBe(1);
    // Nothing recorded a cancellation.
    const cancelled = await s.t.db('outbox').where({ event_type: 'data_import.import_process.cancelled' }).whereRaw(`envelope->'data'->>'external_identifier' = ?`, [ext]);
    expect(cancelled).toHaveLength(0);
  });
});
