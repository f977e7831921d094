/**
 * The raw baseline of the benchmarks: accounts through the create store code alone (this tree's
 * insertAccount), one transaction per account, `concurrency` at a time, with no Temporal, HTTP
 * or events. Returns accounts per second.
 */
import type { Knex } from 'knex';
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
