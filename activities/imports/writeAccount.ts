import { ApplicationFailure } from '@temporalio/common';
import type { Knex } from 'knex';
import type { Account } from '../../account/schema';
import { IMPORT_FAILURE } from '../../lib/failureCodes';
import { isDataError, violatedConstraint } from '../../db/pgErrors';
import { type CreatedAccount, insertAccount, newAccountNumber } from '../../db/stores/accountStore';
import { takenReferences } from '../../account/validator';
import type { ReferencePair } from '../../account/referenceDataStore';
import { lockProcessForWrite, type ImportProcess } from '../../imports/store';
import { type ImportRef, staleRun, type StepDeps } from './context';
import { parsePayload, validationFailure } from './validate';

/** Inserts the run's account (its stored payload under a newly drawn account number) in `trx`. */
export type InsertRunAccount = () => Promise<CreatedAccount>;

/** What the lock read besides the row: whether the import's account exists already. */
export interface RunWriteFacts {
  accountExists: boolean;
}

/**
 * The one place the account is written, for the dry run and the creation alike: the run locked,
 * and in the same statement its stored payload, whether its account exists and which of its
 * references another account holds (imports/store.ts lockProcessForWrite); `body` given the
 * insert. A PostgreSQL error about the data (it will not heal by retrying) becomes the
 * non-retryable creation failure, except a violation of one of `retryable` (a retry heals it).
 * The insert first checks what the lock read: a reference another account took since the payload
 * was validated (the one check of the validation that reads other accounts) is the validation
 * failure `reference_already_exists`, as the validate step would have reported it; the unique
 * index of account_references stops one taken after the lock.
 */
export async function writeRunAccount<T>(
  deps: StepDeps,
  ref: ImportRef,
  retryable: readonly string[],
  body: (trx: Knex.Transaction, p: ImportProcess, insert: InsertRunAccount, facts: RunWriteFacts) => Promise<T>,
): Promise<T> {
  const budget = deps.payloadBudget;
  // One transaction; `inlineUpTo` the largest payload it reads. A larger one ends it at once
  // (nothing written) and reports its size.
  const attempt = (inlineUpTo: number) =>
    deps.db.transaction(async (trx): Promise<{ done: T } | { bytes: number | null }> => {
      const locked = await lockProcessForWrite(trx, ref.importProcessId, inlineUpTo, parsePayload(deps));
      if (!locked || locked.process.run !== ref.run) throw staleRun();
      const p = locked.process;
      if (locked.payload === undefined) return { bytes: p.payloadBytes };
      const payload = locked.payload as Account;
      const insert = async () => {
        await checkReferencesFree(p, payload, locked.takenReferences);
        return insertAccount(trx, {
          importSupplier: p.importSupplier,
          externalAccountNumber: p.externalAccountNumber,
          accountNumber: newAccountNumber(),
          account: payload,
        });
      };
      return { done: await body(trx, p, insert, { accountExists: locked.accountExists }) };
    });
  try {
    const first = await attempt(budget?.inlineBytes ?? Infinity);
    if ('done' in first) return first.done;
    // A large payload (or one of unknown size): wait for room in the budget holding no connection
    // (the pool is smaller than the activity slots: a waiter holding one could starve the holder),
    // then the transaction again, reading the payload with the lock.
    const second = await budget!.hold(first.bytes, () => attempt(Infinity));
    if ('done' in second) return second.done;
    throw new Error('the payload was not read with the lock');
  } catch (err) {
    const constraint = violatedConstraint(err);
    if (isDataError(err) && !(constraint !== undefined && retryable.includes(constraint))) {
      throw ApplicationFailure.create({ type: IMPORT_FAILURE.creation, message: `The account could not be created: ${(err as Error).message}`, nonRetryable: true });
    }
    throw err;
  }
}

async function checkReferencesFree(p: ImportProcess, payload: Account, held: ReferencePair[]): Promise<void> {
  const refs = Array.isArray(payload.references) ? payload.references : [];
  const taken = await takenReferences(
    async () => held,
    { importSupplier: p.importSupplier, externalAccountNumber: p.externalAccountNumber },
    refs.map((r, i) => [r, `references.${i}`] as const),
  );
  if (taken.length > 0) throw validationFailure(taken.map((t) => ({ code: 'reference_already_exists', attr: `${t.attr}.value` })));
}
