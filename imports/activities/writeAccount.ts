import { ApplicationFailure } from '@temporalio/common';
import type { Knex } from 'knex';
import type { Account } from '../../account/schema';
import { IMPORT_FAILURE } from '../../lib/failureCodes';
import { isDataError, violatedConstraint } from '../../db/pgErrors';
import { type CreatedAccount, insertAccount, newAccountNumber } from '../../db/stores/accountStore';
import { findReferenceOwners } from '../../account/referenceDataStore';
import { takenReferences } from '../../account/validator';
import { getPayload, lockProcessWithPayload, type ImportProcess } from '../store';
import { type ImportRef, staleRun, type StepDeps } from './context';
import { validationFailure } from './validate';

/** Inserts the run's account (its stored payload under a newly drawn account number) in `trx`. */
export type InsertRunAccount = () => Promise<CreatedAccount>;

/**
 * The one place the account is written, for the dry run and the creation alike: the run locked
 * and its stored payload read in one statement, `body` given the insert; a PostgreSQL error
 * about the data (it will not heal by retrying) becomes the non-retryable creation failure,
 * except a violation of one of `retryable` (a retry heals it). The insert first checks, under
 * the lock, that no other account took one of the payload's references since it was validated
 * (the one check of the validation that reads other accounts): taken, it is the validation
 * failure `reference_already_exists`, as the validate step would have reported it.
 */
export async function writeRunAccount<T>(
  deps: StepDeps,
  ref: ImportRef,
  retryable: readonly string[],
  body: (trx: Knex, p: ImportProcess, insert: InsertRunAccount) => Promise<T>,
): Promise<T> {
  try {
    return await deps.db.transaction(async (trx) => {
      const budget = deps.payloadBudget;
      const locked = await lockProcessWithPayload(trx, ref.importProcessId, budget?.inlineBytes);
      if (!locked || locked.process.run !== ref.run) throw staleRun();
      const p = locked.process;
      const write = (payload: Account) => {
        const insert = async () => {
          await checkReferencesFree(trx, p, payload);
          return insertAccount(trx, {
            importSupplier: p.importSupplier,
            externalAccountNumber: p.externalAccountNumber,
            accountNumber: newAccountNumber(),
            account: payload,
          });
        };
        return body(trx, p, insert);
      };
      if (locked.payload !== undefined || !budget) return write(locked.payload as Account);
      // A large payload (or one of unknown size) is read once the budget has room for it.
      return budget.hold(p.payloadBytes, async () => write((await getPayload(trx, p.id)) as Account));
    });
  } catch (err) {
    const constraint = violatedConstraint(err);
    if (isDataError(err) && !(constraint !== undefined && retryable.includes(constraint))) {
      throw ApplicationFailure.create({ type: IMPORT_FAILURE.creation, message: `The account could not be created: ${(err as Error).message}`, nonRetryable: true });
    }
    throw err;
  }
}

async function checkReferencesFree(trx: Knex, p: ImportProcess, payload: Account): Promise<void> {
  const refs = Array.isArray(payload.references) ? payload.references : [];
  const taken = await takenReferences(
    (account, pairs) => findReferenceOwners(trx, account, pairs),
    { importSupplier: p.importSupplier, externalAccountNumber: p.externalAccountNumber },
    refs.map((r, i) => [r, `references.${i}`] as const),
  );
  if (taken.length > 0) throw validationFailure(taken.map((t) => ({ code: 'reference_already_exists', attr: `${t.attr}.value` })));
}
