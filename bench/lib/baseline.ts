/**
 * The raw baseline of the benchmarks: accounts through the create store code alone (this tree's
 * insertAccount), one transaction per account, `concurrency` at a time, with no Temporal, HTTP
 * or events. Returns accounts per second.
 */
import type { Knex } from 'knex';
import { createDb, ensureDatabase } from '../../db/knex';
import type { Account } from '../../account/schema';
import { insertAccount, newAccountNumber } from '../../db/stores/accountStore';
import { createSupplier } from '../../suppliers/store';

export async function rawBaselinePerSecond(db: Knex, accounts: readonly Account[], concurrency: number): Promise<number> {
  await createSupplier(db, 'BASELINE', { status: 'Ongoing' });
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, accounts.length) }, async () => {
      while (next < accounts.length) {
        const a = accounts[next++]!;
        await db.transaction((trx) =>
          insertAccount(trx, { importSupplier: 'BASELINE', externalAccountNumber: a.external_account_number, accountNumber: newAccountNumber(), account: { ...a, references: [] } }),
        );
      }
    }),
  );
  return accounts.length / ((performance.now() - t0) / 1000);
}

/**
 * A fresh database of this tree's migrations, named after this process and `suffix`, for `work`
 * with a pool of `pool`; dropped afterwards whatever happens.
 */
export async function withFreshDatabase<T>(suffix: string, pool: number, work: (db: Knex) => Promise<T>): Promise<T> {
  const base = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432';
  const name = `di_bench_${process.pid}_${suffix}`;
  await ensureDatabase(`${base}/${name}`);
  const db = createDb(`${base}/${name}`, pool);
  try {
    await db.migrate.latest();
    return await work(db);
  } finally {
    await db.destroy();
    const admin = createDb(`${base}/postgres`, 1);
    await admin.raw(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.destroy();
  }
}
