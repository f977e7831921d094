/**
 * A poison batch of retention (issue 47, item 4): a batch whose statement fails (here a trigger
 * that refuses to delete one outbox row, as a constraint or a broken row would) used to fail the
 * whole maintenance run at that batch, every run: nothing after it (the later outbox rows, the
 * payloads, the refresh tokens) was pruned again. Now the batch, named by what it prunes, is
 * retried a bounded number of times, then set aside with its reason, and retention goes on.
 */
import crypto from 'node:crypto';
import { createOrganisation, issueApiKey } from '../../auth/store';
import { enqueueEvents } from '../../events/outbox';
import { listAllSetAside, setAsideCounts } from '../../maintenance/setAside';
import { createMetrics } from '../../lib/metrics';
import { runRetention } from '../../maintenance/retention';
import { createTestDatabase, TestDatabase } from '../support/db';
import { runCli } from '../unit/cli/runCli';

describe('retention with a batch it cannot prune', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(async () => {
    await t.drop();
  });

  const settings = { outboxRetentionSeconds: 3600, payloadRetentionSeconds: 3600, batchSize: 2, maxRowsPerRun: 1000, pauseMs: 0 };
  const policy = { maxAttempts: 3, leaseMs: 0 };

  /** Published events written 30 days ago: due for pruning. Their seqs. */
  async function oldPublishedEvents(names: string[]): Promise<string[]> {
    await t.db.transaction((trx) =>
      enqueueEvents(
        trx,
        'poison',
        names.map((name) => ({ type: 'data_import.import_process.complete', version: 'v1', data: { resource_type: 'account', external_identifier: name, identifier: `A-${name}` }, key: `${name}:complete`, orderingKey: name, occurredAt: new Date() })),
      ),
    );
    const rows = (await t.db('outbox').whereIn('ordering_key', names).orderBy('seq').select('seq')) as { seq: string }[];
    const seqs = rows.map((r) => String(r.seq));
    await t.db('outbox_pending').whereIn('seq', seqs).delete();
    await t.db('outbox').whereIn('seq', seqs).update({ created_at: t.db.raw(`now() - interval '30 days'`) });
    return seqs;
  }

  async function expiredTokens(n: number): Promise<void> {
    const key = await issueApiKey(t.db, 'ORG_RP');
    for (let i = 0; i < n; i++) {
      await t.db('refresh_tokens').insert({ jti: crypto.randomUUID(), token_hash: crypto.randomBytes(32).toString('hex'), key_id: key.id, family: crypto.randomUUID(), expires_at: new Date(Date.now() - 3 * 86_400_000) });
    }
  }

  const outboxLeft = async () => ((await t.db('outbox').orderBy('seq').select('seq')) as { seq: string }[]).map((r) => String(r.seq));
  const tokensLeft = async () => Number((await t.db('refresh_tokens').count({ n: '*' }))[0]!.n);

  it('sets the failing batch aside after its attempts while every other batch and kind is pruned; a retried batch is pruned', async () => {
    await createOrganisation(t.db, 'ORG_RP');
    const seqs = await oldPublishedEvents(['E1', 'E2', 'E3', 'E4', 'E5', 'E6']);
    const poison = seqs[2]!;
    await t.db.raw(`CREATE FUNCTION refuse_delete() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'row % refuses to go', OLD.seq; END $$`);
    await t.db.raw(`CREATE TRIGGER refuse_delete BEFORE DELETE ON outbox FOR EACH ROW WHEN (OLD.seq = ${Number(poison)}) EXECUTE FUNCTION refuse_delete()`);
    await expiredTokens(3);
    const batch = `outbox:${seqs[2]}..${seqs[3]}`;
    const metrics = createMetrics('test');

    const first = await runRetention(t.db, settings, { metrics, policy });
    expect(first).toMatchObject({ outbox: { pruned: 4 }, refreshTokens: { pruned: 3 }, failedBatches: [batch] });
    expect(await outboxLeft()).toEqual([seqs[2], seqs[3]]);
    expect(await tokensLeft()).toBe(0);
    for (let run = 2; run <= 3; run++) expect(await runRetention(t.db, settings, { metrics, policy })).toMatchObject({ outbox: { pruned: 0 }, failedBatches: [batch] });

    // Set aside: no run touches it; later work is pruned.
    const later = await oldPublishedEvents(['E7']);
    await expiredTokens(1);
    expect(await runRetention(t.db, settings, { metrics, policy })).toMatchObject({ outbox: { pruned: 1 }, refreshTokens: { pruned: 1 }, failedBatches: [] });
    expect(await outboxLeft()).toEqual([seqs[2], seqs[3]]);
    expect(later).toHaveLength(1);
    const [item] = await listAllSetAside(t.db, { queue: 'retention' });
    expect(item).toMatchObject({ queue: 'retention', id: batch, attempts: 3 });
    expect(item!.reason).toMatch(/refuses to go/);
    expect((await setAsideCounts(t.db)).retention).toBe(1);
    expect((await metrics.queueItemFailures.get()).values).toEqual([expect.objectContaining({ labels: { queue: 'retention' }, value: 3 })]);
    expect((await metrics.queueItemsSetAside.get()).values).toEqual([expect.objectContaining({ labels: { queue: 'retention' }, value: 1 })]);

    // The operator's fix, then the retry: the next run prunes the batch.
    await t.db.raw('DROP TRIGGER refuse_delete ON outbox');
    const env = { APP_ENV: 'test', DATABASE_URL: t.url };
    expect(await runCli(['set-aside', 'retry', 'retention', batch], env)).toMatchObject({ code: 0, stdout: `put back on the retention queue: ${batch}\n` });
    expect(await runRetention(t.db, settings, { metrics, policy })).toMatchObject({ outbox: { pruned: 2 }, failedBatches: [] });
    expect(await outboxLeft()).toEqual([]);
    expect(await t.db('queue_item_attempts').where({ queue: 'retention' })).toEqual([]);
  });
});
