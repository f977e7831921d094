import { enqueueEvents } from '../../events/outbox';
import { findAccountByExternal } from '../../db/stores/accountStore';
import { getSupplier } from '../../suppliers/store';
import { queueAddressOnly } from '../../emails/store';
import { setStep } from '../../imports/store';
import { postImportCompletedEvent, postImportErrorEvent } from '../../imports/events';
import { type ImportRef, lockRun, scopeOf, type StepDeps } from './context';

/**
 * Supplier-configured follow-ups: customer emails queued when the supplier turns them on. The
 * workflow's path before e-mail delivery existed (activities/emails/customerEmails.ts took over); histories
 * recorded then replay it.
 */
export async function postImport(deps: StepDeps, ref: ImportRef): Promise<{ outcome: 'completed' | 'failed' }> {
  return deps.db.transaction(async (trx) => {
    const p = await lockRun(trx, ref);
    // Run again after a crash: the follow-ups' outcome is already recorded, with its event.
    if (p.currentStep === 'done') return { outcome: 'completed' as const };
    if (p.currentStep === 'post_import_failed') return { outcome: 'failed' as const };
    const supplier = await getSupplier(trx, p.importSupplier);
    const accountNumber = p.krakenIdentifier;
    if (!accountNumber) throw new Error('post-import found no account number on a PROCESSED import');
    if (supplier?.sendCustomerEmails) {
      // Only this follow-up needs the users: read them only when it is on.
      const account = await findAccountByExternal(trx, p.importSupplier, p.externalAccountNumber);
      if (!account) throw new Error('post-import found no account for a PROCESSED import');
      const users = account.users.filter((u) => u.email).map((u) => ({ userNumber: u.userNumber, email: u.email! }));
      await queueAddressOnly(trx, account.accountNumber, users, 'migration_welcome');
    }
    const at = deps.now();
    await setStep(trx, p.id, p.run, 'done');
    await enqueueEvents(trx, deps.subjectPrefix, [postImportCompletedEvent(scopeOf(p, at), accountNumber)]);
    return { outcome: 'completed' as const };
  });
}

/** post_import_failed with its event, once. */
export async function recordPostImportError(deps: StepDeps, input: ImportRef & { code: string; detail: string }): Promise<void> {
  await deps.db.transaction(async (trx) => {
    const p = await lockRun(trx, input);
    if (p.currentStep === 'done' || p.currentStep === 'post_import_failed') return;
    const at = deps.now();
    await setStep(trx, p.id, p.run, 'post_import_failed');
    await enqueueEvents(trx, deps.subjectPrefix, [postImportErrorEvent(scopeOf(p, at), input.code, input.detail)]);
  });
}
