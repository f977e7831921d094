import type { ImportRef, StepDeps } from './context';
import { writeRunAccount } from './writeAccount';

const sentinelRollback = Symbol('dry-run rollback');

/** The whole creation inside a transaction that is rolled back: proves it would commit. */
export async function dryRunImport(deps: StepDeps, ref: ImportRef): Promise<void> {
  try {
    // Any data error fails the dry run, a clash of the drawn account number included.
    await writeRunAccount(deps, ref, [], async (_trx, _p, insert) => {
      await insert();
      throw sentinelRollback;
    });
  } catch (err) {
    if (err === sentinelRollback) return;
    throw err;
  }
}
