import { ApplicationFailure } from '@temporalio/common';
import { IMPORT_FAILURE } from '../../lib/failureCodes';
import { CONSTRAINT } from '../../db/pgErrors';
import { findAccountByExternal } from '../../db/stores/accountStore';
import { accountCreatedEvents } from '../../imports/events';
import { type ImportRef, logFor, move, scopeOf, type StepDeps } from './context';
import { writeRunAccount } from './writeAccount';

/**
 * One transaction: the account (queued for its stored digest: db/stores/accountDigests.ts),
 * PROCESSED with kraken_identifier, and every event of the creation. Idempotent: a retry after a commit finds PROCESSED and returns the same account.
 */
export async function createAccount(deps: StepDeps, ref: ImportRef): Promise<{ accountNumber: string }> {
  // A drawn account number already taken is retried: the next attempt draws another.
  return writeRunAccount(deps, ref, [CONSTRAINT.accountNumber], async (trx, p, insert, facts) => {
    if (p.status === 'PROCESSED' && p.krakenIdentifier) return { accountNumber: p.krakenIdentifier };
    if (p.status === 'CANCELLED') {
      throw ApplicationFailure.create({ type: IMPORT_FAILURE.cancelled, message: 'The import was cancelled before the account was created.', nonRetryable: true });
    }
    if (p.status !== 'IN_PROGRESS') {
      // Another attempt of this run already recorded its end (ERRORED, say): never overwrite it.
      throw ApplicationFailure.create({ type: IMPORT_FAILURE.settled, message: `This run already ended ${p.status}.`, nonRetryable: true });
    }
    // An account already there (the lock read whether one is) is this import's: use it.
    const existing = facts.accountExists ? await findAccountByExternal(trx, p.importSupplier, p.externalAccountNumber) : null;
    const at = deps.now();
    const created = existing ?? (await insert());
    await move(deps, trx, p, 'PROCESSED', at, { step: 'post_import', krakenIdentifier: created.accountNumber, error: null }, accountCreatedEvents(scopeOf(p, at), created));
    logFor(deps.log, p).info({ accountNumber: created.accountNumber }, 'account created');
    return { accountNumber: created.accountNumber };
  });
}
