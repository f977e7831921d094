import { ApplicationFailure } from '@temporalio/common';
import type { Knex } from 'knex';
import type { Account } from '../../account/schema';
import { IMPORT_FAILURE } from '../../lib/failureCodes';
import { isDataError, violatedConstraint } from '../../db/pgErrors';
import { type CreatedAccount, insertAccount, newAccountNumber } from '../../db/stores/accountStore';
import { getPayload, type ImportProcess } from '../store';
import { type ImportRef, lockRun, type StepDeps } from './context';

/** Inserts the run's account (its stored payload under a newly drawn account number) in `trx`. */
export type InsertRunAccount = () => Promise<CreatedAccount>;

/**
 * The one place the account is written, for the dry run and the creation alike: the stored
 * payload read, the run locked in a transaction, `body` given the insert; a PostgreSQL error
 * about the data (it will not heal by retrying) becomes the non-retryable creation failure,
 * except a violation of one of `retryable` (a retry heals it).
 */
export async function writeRunAccount<T>(
  deps: StepDeps,
  ref: ImportRef,
  retryable: readonly string[],
  body: (trx: Knex, p: ImportProcess, insert: InsertRunAccount) => Promise<T>,
): Promise<T> {
  const payload = (await getPayload(deps.db, ref.importProcessId)) as Account;
  try {
    return await deps.db.transaction(async (trx) => {
      const p = await lockRun(trx, ref);
      const insert = () =>
        insertAccount(trx, {
          importSupplier: p.importSupplier,
          externalAccountNumber: p.externalAccountNumber,
          accountNumber: newAccountNumber(),
          account: payload,
        });
      return body(trx, p, insert);
    });
  } catch (err) {
    const constraint = violatedConstraint(err);
    if (isDataError(err) && !(constraint !== undefined && retryable.includes(constraint))) {
      throw ApplicationFailure.create({ type: IMPORT_FAILURE.creation, message: `The account could not be created: ${(err as Error).message}`, nonRetryable: true });
    }
    throw err;
  }
}
