import fs from 'node:fs';
import path from 'node:path';
import { digestForm, pendingDigestCount } from '../../db/stores/accountDigests';
import { listSetAside, recordAttempt, retrySetAside, setAsideCount } from '../../db/stores/digestQueue';
import { insertAccount, newAccountNumber, type Account } from '../../db/stores/accountStore';
import { DigestFiller } from '../../imports/digestFiller';
import { createLogger } from '../../lib/logger';
import { createMetrics } from '../../lib/metrics';
import { buildSummary } from '../../ops/summary';
import { createTestDatabase, TestDatabase } from '../support/db';
import { runCli } from '../unit/cli/runCli';

const EXAMPLE_PATH = path.join(__dirname, '../../examples/account-dual-fuel.json');

function variant(externalAccountNumber: string): Account {
  const a = JSON.parse(fs.readFileSync(EXAMPLE_PATH, 'utf8')) as Account;
  a.external_account_number = externalAccountNumber;
  a.references = (a.references ?? []).map((r) => ({ ...r, value: `${r.value}-${externalAccountNumber}` }));
  return a;
}

/**
 * A poison item of the digest filler's queue (issue 47, item 4): an account whose digest cannot be
 * stored is retried a bounded number of times, then set aside with its reason, counted and named,
 * while every other tenant's account gets its digest; an attempt is recorded before the work, so
 * an attempt that never finished (the process died) counts too.
 */
describe('digest filler with a poison account', () => {
  let t: TestDatabase;
  const ids = new Map<string, number>();

  const add = async (supplier: string, external: string) => {
    const number = newAccountNumber();
    await t.db.transaction((trx) => insertAccount(trx, { importSupplier: supplier, externalAccountNumber: external, accountNumber: number, account: variant(external) }));
    ids.set(external, Number(((await t.db('accounts').where({ number }).first('id')) as { id: string }).id));
  };
  const stored = async (external: string) => ((await t.db('accounts').where({ id: ids.get(external)! }).first('stored_digest')) as { stored_digest: string | null }).stored_digest;

  beforeAll(async () => {
    t = await createTestDatabase();
    await t.db('import_suppliers').insert([{ code: 'TENANT_A' }, { code: 'TENANT_B' }]);
    // The poison: storing this one account's digest fails, as a read-back the worker cannot finish would.
    await t.db.raw(`CREATE FUNCTION poison_digest() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'poisoned account %', NEW.external_account_number; END $$`);
    await t.db.raw(`CREATE TRIGGER poison_digest BEFORE UPDATE OF stored_digest ON accounts FOR EACH ROW
      WHEN (NEW.external_account_number = 'POISON' AND NEW.stored_digest IS NOT NULL) EXECUTE FUNCTION poison_digest()`);
    for (const [supplier, external] of [['TENANT_A', 'A-1'], ['TENANT_A', 'POISON'], ['TENANT_B', 'B-1'], ['TENANT_B', 'B-2']]) await add(supplier!, external!);
  });
  afterAll(async () => {
    await t.drop();
  });

  it('sets the poison account aside after its three attempts, with its reason, while every other account gets its digest', async () => {
    const metrics = createMetrics('test');
    const filler = new DigestFiller({ db: t.db, log: createLogger({ level: 'silent', name: 'test' }), metrics, policy: { maxAttempts: 3, leaseMs: 0 } });
    for (let pass = 0; pass < 4; pass++) await filler.drain();
    for (const ext of ['A-1', 'B-1', 'B-2']) expect(await stored(ext)).toMatch(new RegExp(`^${digestForm()}:sha256:`));
    expect(await stored('POISON')).toBeNull();
    expect(await pendingDigestCount(t.db)).toBe(0);
    expect(await setAsideCount(t.db)).toBe(1);
    const [item] = await listSetAside(t.db);
    expect(item).toMatchObject({ queue: 'digest', id: ids.get('POISON'), supplier: 'TENANT_A', externalAccountNumber: 'POISON', attempts: 3 });
    expect(item!.reason).toContain('poisoned account POISON');
    expect((await metrics.queueItemsSetAside.get()).values).toEqual([expect.objectContaining({ labels: { queue: 'digest' }, value: 1 })]);
    // The first batch's failure (all four accounts), then the poison's two attempts alone.
    expect((await metrics.queueItemFailures.get()).values[0]!.value).toBe(3);
    // Set aside, it is taken by no pass.
    await filler.drain();
    expect((await listSetAside(t.db))[0]!.attempts).toBe(3);
    // Counted on the operations page and named by the operator command.
    const summary = await buildSummary(t.db, { supplier: null, hours: 1, temporal: { uiUrl: 'http://ui', namespace: 'default' } });
    expect(summary.set_aside).toEqual({ digest: 1, outbox: 0, sweeper: 0, email: 0, retention: 0 });
    const listed = await runCli(['set-aside', 'list', '--json'], { APP_ENV: 'test', DATABASE_URL: t.url });
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ queue: 'digest', id: ids.get('POISON'), externalAccountNumber: 'POISON', attempts: 3 })]);
    expect((await runCli(['set-aside', 'retry'], { APP_ENV: 'test', DATABASE_URL: t.url })).code).toBe(1);
    expect((await runCli(['set-aside', 'retry', 'digest'], { APP_ENV: 'test', DATABASE_URL: t.url })).code).toBe(1);
  });

  it('takes a set-aside account again once an operator fixed and retried it', async () => {
    await t.db.raw('DROP TRIGGER poison_digest ON accounts');
    const retried = await runCli(['set-aside', 'retry', 'digest', String(ids.get('POISON'))], { APP_ENV: 'test', DATABASE_URL: t.url });
    expect(retried).toMatchObject({ code: 0, stdout: `put back on the digest queue: ${ids.get('POISON')}\n` });
    expect(await retrySetAside(t.db, null)).toEqual([]);
    expect(await setAsideCount(t.db)).toBe(0);
    await new DigestFiller({ db: t.db, log: createLogger({ level: 'silent', name: 'test' }) }).drain();
    expect(await stored('POISON')).toMatch(new RegExp(`^${digestForm()}:sha256:`));
    expect(await pendingDigestCount(t.db)).toBe(0);
  });

  it('counts an attempt that never finished: a row is not taken again within its lease, and is set aside at the next claim once its attempts are used up', async () => {
    await add('TENANT_A', 'DIES');
    // A lease far longer than any pause of a loaded machine; its end is brought about by moving the
    // attempt back in time (a 300 ms lease ran out under load before the restarted worker's claim).
    const policy = { maxAttempts: 2, leaseMs: 600_000 };
    const leaseRunsOut = () => t.db.raw(`UPDATE account_digest_pending SET attempted_at = attempted_at - interval '1 hour' WHERE account_id = ?`, [ids.get('DIES')!]);
    // A worker records its attempt and dies in the work (nothing else happens to the row).
    expect(await recordAttempt(t.db, { limit: 500, retried: false, policy })).toEqual([ids.get('DIES')]);
    await add('TENANT_B', 'B-3');
    // A restarted worker within the lease leaves the row alone and fills the other tenant's account.
    const filler = new DigestFiller({ db: t.db, log: createLogger({ level: 'silent', name: 'test' }), policy });
    await filler.drain();
    expect(await stored('B-3')).toMatch(new RegExp(`^${digestForm()}:sha256:`));
    expect(((await t.db('account_digest_pending').where({ account_id: ids.get('DIES') }).first('attempts')) as { attempts: number }).attempts).toBe(1);
    await leaseRunsOut();
    // Its second attempt dies too.
    expect(await recordAttempt(t.db, { limit: 1, retried: true, policy })).toEqual([ids.get('DIES')]);
    await leaseRunsOut();
    await filler.drain();
    expect(await stored('DIES')).toBeNull();
    const [item] = await listSetAside(t.db);
    expect(item).toMatchObject({ externalAccountNumber: 'DIES', attempts: 2 });
    expect(item!.reason).toMatch(/attempt 2 never finished/);
  });
});
