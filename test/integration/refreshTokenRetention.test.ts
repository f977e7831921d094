/**
 * Issue 39 (Low): refresh tokens were never pruned. Maintenance (maintenance/retention.ts) deletes
 * the ones expired or revoked more than a day ago and keeps every one still of use: unused and
 * unexpired (it works), used and unexpired (presenting it again revokes its family).
 */
import crypto from 'node:crypto';
import { createOrganisation, issueApiKey } from '../../auth/store';
import { REFRESH_TOKEN_GRACE_SECONDS, runRetention } from '../../maintenance/retention';
import { createTestDatabase, TestDatabase } from '../support/db';

describe('maintenance prunes refresh tokens nothing accepts any more', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(async () => {
    await t.drop();
  });

  const settings = { outboxRetentionSeconds: 3600, payloadRetentionSeconds: 3600, batchSize: 2, maxRowsPerRun: 1000, pauseMs: 0 };
  const ago = (s: number) => new Date(Date.now() - s * 1000);
  const later = (s: number) => new Date(Date.now() + s * 1000);

  it('deletes expired and revoked ones past a day, keeps live and recently ended ones; the key_id index exists', async () => {
    await createOrganisation(t.db, 'ORG_RT');
    const key = await issueApiKey(t.db, 'ORG_RT');
    const family = crypto.randomUUID();
    const day = REFRESH_TOKEN_GRACE_SECONDS;
    const rows = {
      live: { expires_at: later(3600) },
      usedLive: { expires_at: later(3600), used_at: ago(60) },
      expiredRecently: { expires_at: ago(60) },
      revokedRecently: { expires_at: later(3600), revoked_at: ago(60) },
      expiredLongAgo: { expires_at: ago(day + 60) },
      usedExpiredLongAgo: { expires_at: ago(day + 60), used_at: ago(day * 2) },
      revokedLongAgo: { expires_at: later(3600), revoked_at: ago(day + 60) },
    };
    const jti: Record<string, string> = {};
    for (const [name, r] of Object.entries(rows)) {
      jti[name] = crypto.randomUUID();
      await t.db('refresh_tokens').insert({ jti: jti[name], token_hash: crypto.randomBytes(32).toString('hex'), key_id: key.id, family, ...r });
    }
    const dry = await runRetention(t.db, settings, { dryRun: true });
    expect(dry.refreshTokens).toEqual({ pruned: 3, pending: 0 });
    expect(Number((await t.db('refresh_tokens').count({ n: '*' }))[0]!.n)).toBe(7);

    const report = await runRetention(t.db, settings);
    expect(report.refreshTokens).toEqual({ pruned: 3, pending: 0 });
    const left = new Set((await t.db('refresh_tokens').select('jti')).map((r: { jti: string }) => r.jti));
    expect(Object.keys(jti).filter((n) => left.has(jti[n]!)).sort()).toEqual(['expiredRecently', 'live', 'revokedRecently', 'usedLive']);

    const indexes = await t.db.raw(`SELECT indexdef FROM pg_indexes WHERE tablename = 'refresh_tokens'`);
    expect(indexes.rows.map((r: { indexdef: string }) => r.indexdef)).toEqual(expect.arrayContaining([expect.stringMatching(/\(key_id\)$/)]));
  });
});
