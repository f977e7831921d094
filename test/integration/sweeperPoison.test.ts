/**
 * A poison item of the sweeper (issue 47, item 4): a stored import whose workflow cannot be started
 * (a stored value the start cannot use, written through the database) used to abort every pass at
 * the first run it found, so no later stored import was ever started. Now its
 * start is retried a bounded number of times, then set aside with its reason, counted and named,
 * while the other stored imports are started; an operator's retry puts it back.
 */
import type { Client } from '@temporalio/client';
import request from 'supertest';
import { createApp } from '../../api/app';
import { UnstartedRunSweeper } from '../../imports/sweeper';
import { listAllSetAside, setAsideCounts } from '../../maintenance/setAside';
import { createMetrics } from '../../lib/metrics';
import { uniqueAccount } from '../support/fixtures';
import { silentLog, startStack, Stack } from '../support/stack';
import { runCli } from '../unit/cli/runCli';

jest.setTimeout(120_000);

describe('the sweeper with a stored import whose workflow cannot be started', () => {
  let s: Stack;
  const down = { workflow: { start: async () => Promise.reject(new Error('start lost: Temporal did not answer')) } } as unknown as Client;

  beforeAll(async () => {
    s = await startStack({ relay: false, worker: false });
  });
  afterAll(async () => {
    await s?.stop();
  });

  const row = (external: string) => s.t.db('import_processes').where({ import_supplier: 'DEMO_ENERGY', external_account_number: external }).first();

  async function lostCreate(name: string): Promise<string> {
    const external = s.ext(name);
    const res = await request(createApp({ ...s.deps, temporal: down }).callback()).post('/v2/data-import/accounts/').set(await s.authHeader('DEMO_ENERGY')).send(uniqueAccount(external));
    expect(res.status).toBe(201);
    return external;
  }

  it('sets the poison run aside after its attempts and starts every other stored import', async () => {
    const poison = await lostCreate('POISON');
    const others = [await lostCreate('OTHER1'), await lostCreate('OTHER2')];
    // The poison, through the database: a run whose stored window the sweeper cannot turn into the
    // workflow's input (PostgreSQL's 'infinity', read back as a number, not a date).
    await s.t.db.raw(`UPDATE import_processes SET schedule_window_start = 'infinity' WHERE import_supplier = 'DEMO_ENERGY' AND external_account_number = ?`, [poison]);
    const metrics = createMetrics('test');
    const sweeper = new UnstartedRunSweeper({ db: s.t.db, temporal: s.client, taskQueue: s.taskQueue, log: silentLog, graceSeconds: 0, metrics, policy: { maxAttempts: 3, leaseMs: 0 } });
    expect(await sweeper.sweep()).toBe(2);
    for (const ext of others) expect((await row(ext)).workflow_run_id).toEqual(expect.any(String));
    await sweeper.sweep();
    await sweeper.sweep();
    expect((await row(poison)).workflow_run_id).toBeNull();
    const [item] = await listAllSetAside(s.t.db, { queue: 'sweeper' });
    const id = Number((await row(poison)).id);
    expect(item).toMatchObject({ queue: 'sweeper', id, item: 'run 1', supplier: 'DEMO_ENERGY', externalAccountNumber: poison, attempts: 3 });
    expect(item!.reason).toMatch(/toISOString|Invalid time value/);
    expect((await metrics.queueItemFailures.get()).values).toEqual([expect.objectContaining({ labels: { queue: 'sweeper' }, value: 3 })]);
    expect((await metrics.queueItemsSetAside.get()).values).toEqual([expect.objectContaining({ labels: { queue: 'sweeper' }, value: 1 })]);
    // Set aside, it is taken by no pass; a stored import after it is started.
    const later = await lostCreate('LATER');
    expect(await sweeper.sweep()).toBe(1);
    expect((await row(later)).workflow_run_id).toEqual(expect.any(String));
    expect((await listAllSetAside(s.t.db, { queue: 'sweeper' }))[0]).toMatchObject({ attempts: 3 });
    expect((await setAsideCounts(s.t.db)).sweeper).toBe(1);
    // The operator's fix, then the retry: the next pass starts it.
    await s.t.db.raw(`UPDATE import_processes SET schedule_window_start = now() WHERE id = ?`, [id]);
    expect(await runCli(['set-aside', 'retry', 'sweeper', String(id)], { APP_ENV: 'test', DATABASE_URL: s.t.url })).toMatchObject({ code: 0, stdout: `put back on the sweeper queue: ${id}\n` });
    expect(await sweeper.sweep()).toBe(1);
    expect((await row(poison)).workflow_run_id).toEqual(expect.any(String));
    expect(await setAsideCounts(s.t.db)).toEqual({ digest: 0, outbox: 0, sweeper: 0, email: 0, retention: 0 });
  });
});
