import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import { accountDigest } from '../../account/canonical';
import { accountDigests, digestForm, fillPendingDigests, pendingDigestCount } from '../../db/stores/accountDigests';
import { OWNED_TABLES } from '../../db/stores/accountTables';
import { insertAccount, loadAccount, newAccountNumber, type Account } from '../../db/stores/accountStore';
import { createTestDatabase, TestDatabase } from '../support/db';
import { DigestFiller } from '../../imports/digestFiller';
import { createLogger } from '../../lib/logger';

const EXAMPLE_PATH = path.join(__dirname, '../../examples/account-dual-fuel.json');
const SUPPLIER = 'DEMO_ENERGY';

function variant(externalAccountNumber: string): Account {
  const a = JSON.parse(fs.readFileSync(EXAMPLE_PATH, 'utf8')) as Account;
  a.external_account_number = externalAccountNumber;
  a.references = (a.references ?? []).map((r) => ({ ...r, value: `${r.value}-${externalAccountNumber}` }));
  return a;
}

/**
 * The stored digests (db/stores/accountDigests.ts, migration 0016) on the real PostgreSQL: a digest
 * is stored only from the rows it hashes, and no change to those rows, by any statement, leaves it
 * behind — including a writer racing the reader that stores it.
 */
describe('stored account digests', () => {
  let t: TestDatabase;
  const accounts = new Map<string, { id: number; number: string; sent: Account }>();

  const stored = async (external: string) => ((await t.db('accounts').where({ import_supplier: SUPPLIER, external_account_number: external }).first('stored_digest')) as { stored_digest: string | null }).stored_digest;
  const digestsOf = (externals: string[]) => t.db.transaction((trx) => accountDigests(trx, SUPPLIER, externals));
  const fresh = async (external: string) => accountDigest(await loadAccount(t.db, accounts.get(external)!.number));

  beforeAll(async () => {
    t = await createTestDatabase();
    await t.db('import_suppliers').insert({ code: SUPPLIER });
    for (const ext of ['DIG-A', 'DIG-B']) {
      const sent = variant(ext);
      const number = newAccountNumber();
      const created = await t.db.transaction((trx) => insertAccount(trx, { importSupplier: SUPPLIER, externalAccountNumber: ext, accountNumber: number, account: sent }));
      const id = Number(((await t.db('accounts').where({ number }).first('id')) as { id: string }).id);
      accounts.set(ext, { id, number: created.accountNumber, sent });
    }
  });
  afterAll(async () => {
    await t.drop();
  });

  it('queues each new account for the digest filler, which stores the digest of its rows and empties the queue', async () => {
    expect(await pendingDigestCount(t.db)).toBe(2);
    expect(await stored('DIG-A')).toBeNull();
    // An account queued and deleted before the filler got to it: taken off the queue, nothing stored.
    const gone = variant('DIG-GONE');
    const goneNumber = newAccountNumber();
    await t.db.transaction((trx) => insertAccount(trx, { importSupplier: SUPPLIER, externalAccountNumber: 'DIG-GONE', accountNumber: goneNumber, account: gone }));
    await t.db('accounts').where({ number: goneNumber }).del();
    expect(await pendingDigestCount(t.db)).toBe(3);
    expect(await fillPendingDigests(t.db, 2)).toBe(2);
    expect(await fillPendingDigests(t.db, 2)).toBe(1);
    expect(await fillPendingDigests(t.db, 2)).toBe(0);
    expect(await pendingDigestCount(t.db)).toBe(0);
    for (const ext of ['DIG-A', 'DIG-B']) expect(await stored(ext)).toBe(`${digestForm()}:${accountDigest(accounts.get(ext)!.sent)}`);
    // The filler's work undone, for the tests below.
    await t.db('accounts').update({ stored_digest: null });
  });

  it('stores the digest of the account read back, in this build’s form, and answers it next time without reading the rows', async () => {
    expect(await stored('DIG-A')).toBeNull();
    const first = await digestsOf(['DIG-A', 'DIG-B', 'NOT-THERE']);
    expect([...first.keys()].sort()).toEqual(['DIG-A', 'DIG-B']);
    expect(first.get('DIG-A')).toBe(accountDigest(accounts.get('DIG-A')!.sent));
    expect(await stored('DIG-A')).toBe(`${digestForm()}:${first.get('DIG-A')}`);
    // Answered from the row: a digest stored by hand is what comes back (nothing else was read).
    await t.db.raw(`UPDATE accounts SET stored_digest = ? WHERE id = ?`, [`${digestForm()}:sha256:planted`, accounts.get('DIG-A')!.id]);
    expect((await digestsOf(['DIG-A'])).get('DIG-A')).toBe('sha256:planted');
    // One of another form (another build's canonical form or read-back) is not used, and replaced.
    await t.db.raw(`UPDATE accounts SET stored_digest = 'someotherform:sha256:old' WHERE id = ?`, [accounts.get('DIG-A')!.id]);
    expect((await digestsOf(['DIG-A'])).get('DIG-A')).toBe(accountDigest(accounts.get('DIG-A')!.sent));
    expect(await stored('DIG-A')).toBe(`${digestForm()}:${accountDigest(accounts.get('DIG-A')!.sent)}`);
  });

  it('has the forgetting triggers on every table of the read-back and on account_references', async () => {
    const rows = (await t.db.raw(`SELECT c.relname AS t, array_agg(tg.tgname::text ORDER BY tg.tgname) AS names FROM pg_trigger tg JOIN pg_class c ON c.oid = tg.tgrelid WHERE tg.tgname LIKE 'account_digest_forget%' GROUP BY c.relname`)).rows as { t: string; names: string[] }[];
    const byTable = new Map(rows.map((r) => [r.t, r.names]));
    for (const table of [...OWNED_TABLES, 'account_references']) {
      expect([table, byTable.get(table)]).toEqual([table, ['account_digest_forget_delete', 'account_digest_forget_insert', 'account_digest_forget_truncate', 'account_digest_forget_update']]);
    }
    expect(byTable.get('accounts')).toEqual(['account_digest_forget']);
    expect(byTable.size).toBe(OWNED_TABLES.length + 2);
  });

  it('forgets the digest of exactly the account whose rows a statement changed, in every table', async () => {
    const a = accounts.get('DIG-A')!;
    let tried = 0;
    for (const table of OWNED_TABLES) {
      const row = (await t.db(table).where({ account_id: a.id }).orderBy('id').first('id')) as { id: string } | undefined;
      if (!row) continue;
      await digestsOf(['DIG-A', 'DIG-B']);
      expect(await stored('DIG-A')).not.toBeNull();
      await t.db(table).where({ id: row.id }).update({ id: t.db.raw('id') });
      expect([table, await stored('DIG-A')]).toEqual([table, null]);
      expect([table, await stored('DIG-B')]).toEqual([table, expect.any(String)]);
      tried++;
    }
    expect(tried).toBeGreaterThan(15);
    // A value changed: the digest moves with it.
    await digestsOf(['DIG-A']);
    await t.db('registers').whereIn('id', t.db('registers').min('id').where({ account_id: a.id })).update({ register_id: 'CHANGED' });
    const moved = (await digestsOf(['DIG-A'])).get('DIG-A');
    expect(moved).not.toBe(accountDigest(a.sent));
    expect(moved).toBe(await fresh('DIG-A'));
    // The accounts row's own columns; a reference; a row inserted and deleted.
    for (const change of [
      () => t.db('accounts').where({ id: a.id }).update({ billing_name: 'Someone Else' }),
      () => t.db('account_references').where({ import_supplier: SUPPLIER, external_account_number: 'DIG-A' }).update({ value: t.db.raw(`value || '-x'`) }),
      () => t.db('account_metadata').where({ account_id: a.id }).del(),
      () => t.db.raw(`INSERT INTO account_metadata (account_id, key, value, position) VALUES (?, 'added', '"1"'::jsonb, 99)`, [a.id]),
    ]) {
      await digestsOf(['DIG-A']);
      expect(await stored('DIG-A')).not.toBeNull();
      await change();
      expect(await stored('DIG-A')).toBeNull();
      expect((await digestsOf(['DIG-A'])).get('DIG-A')).toBe(await fresh('DIG-A'));
    }
    // Storing the digest itself forgets nothing.
    expect(await stored('DIG-A')).toBe(`${digestForm()}:${await fresh('DIG-A')}`);
  });

  it('never leaves a digest of older rows behind when a writer races the reader, in either order', async () => {
    const a = accounts.get('DIG-B')!;
    await digestsOf(['DIG-B']);
    const metadata = async (db: Knex, value: string) => db('account_metadata').whereIn('id', db('account_metadata').min('id').where({ account_id: a.id })).update({ value: JSON.stringify(value) });
    // 1. The writer first: its statement ran (the trigger holds the accounts row), not yet committed;
    // no digest stored, so the reader reads the rows.
    await t.db('accounts').where({ id: a.id }).update({ stored_digest: null });
    const writer = await t.db.transaction();
    await metadata(writer, 'writer-first');
    const during = (await digestsOf(['DIG-B'])).get('DIG-B');
    expect(during).toBe(await fresh('DIG-B')); // the committed rows, answered
    expect(await stored('DIG-B')).toBeNull(); // and not stored: the writer holds the row
    await writer.commit();
    expect((await digestsOf(['DIG-B'])).get('DIG-B')).toBe(await fresh('DIG-B'));
    expect(await stored('DIG-B')).toBe(`${digestForm()}:${await fresh('DIG-B')}`);

    // 2. The reader first: it holds the row, read the rows and stored a digest, not yet committed; a
    // writer's statement waits for it, then forgets the digest the reader stored.
    await t.db('accounts').where({ id: a.id }).update({ stored_digest: null });
    const reader = await t.db.transaction();
    const readerDigest = (await accountDigests(reader, SUPPLIER, ['DIG-B'])).get('DIG-B');
    let written = false;
    const write = metadata(t.db, 'reader-first').then(() => (written = true));
    await new Promise((r) => setTimeout(r, 300));
    expect(written).toBe(false);
    await reader.commit();
    await write;
    expect(await stored('DIG-B')).toBeNull();
    const after = (await digestsOf(['DIG-B'])).get('DIG-B');
    expect(after).not.toBe(readerDigest);
    expect(after).toBe(await fresh('DIG-B'));
  });

  it('the workers’ filler drains the queue on its own, a full batch after another, and stops', async () => {
    for (const ext of ['DIG-C', 'DIG-D', 'DIG-E']) {
      const sent = variant(ext);
      const number = newAccountNumber();
      await t.db.transaction((trx) => insertAccount(trx, { importSupplier: SUPPLIER, externalAccountNumber: ext, accountNumber: number, account: sent }));
      accounts.set(ext, { id: 0, number, sent });
    }
    expect(await pendingDigestCount(t.db)).toBe(3);
    const filler = new DigestFiller({ db: t.db, log: createLogger({ level: 'warn', name: 'test' }), intervalMs: 50, batch: 2 });
    filler.start();
    const deadline = Date.now() + 10_000;
    while ((await pendingDigestCount(t.db)) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await filler.stop();
    expect(await pendingDigestCount(t.db)).toBe(0);
    for (const ext of ['DIG-C', 'DIG-D', 'DIG-E']) expect(await stored(ext)).toBe(`${digestForm()}:${accountDigest(accounts.get(ext)!.sent)}`);
  });

  it('forgets every digest on a TRUNCATE of an account table', async () => {
    await digestsOf(['DIG-A', 'DIG-B']);
    await t.db.raw('TRUNCATE smart_refusal_interests');
    expect(await stored('DIG-A')).toBeNull();
    expect(await stored('DIG-B')).toBeNull();
  });
});
