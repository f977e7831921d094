import type { Knex } from 'knex';
import type { Context } from 'koa';
import { checkBankDetails } from '../account/rules/paymentInstructions';
import type { ErrorBodyShape } from '../http/middleware/errorShape';
import { canAccessSupplier } from '../http/principal';
import { findProcess, importProcessDoesNotExist } from '../imports';
import { getSupplier } from '../suppliers';
import { bodyChecker } from '../http/validation';
import { type PaymentInstructionRequestBody, PaymentInstructionRequestSchema } from './schemas';
import { lockAccountRow } from '../db/stores/accountLookups';
import { insertPaymentInstruction, paymentInstructionsOf } from '../db/stores/accountTopUps';
import { DomainError } from '../lib/errors';

/** Shape, then the request's own rules: one reference, and the bank details of a Direct Debit. */
export const checkPaymentInstructionBody = bodyChecker<PaymentInstructionRequestBody>(PaymentInstructionRequestSchema, (b, issues) => {
  if ((b.reference === undefined) === (b.instruction_reference === undefined)) {
    issues.add('mutually_exclusive_field_required', 'reference', 'Give exactly one of reference and instruction_reference.');
  }
  checkBankDetails(b, '', issues);
});

/** The platform's CreatePaymentInstructionResponse. */
export interface PaymentInstructionCreated {
  kraken_account_number: string;
  /** The platform's copy of kraken_account_number (as in its AccountTransferStatus). */
  account_number: string;
  reference: string;
}

/** The columns of payment_instructions a request gives (db/stores/accountTables.ts). */
function columnsOf(b: PaymentInstructionRequestBody) {
  return {
    reference: (b.reference ?? b.instruction_reference)!,
    type: b.type,
    vendor: b.vendor,
    ledger_code: b.ledger_code ?? null,
    use_for_scheduled_payments: b.use_for_scheduled_payments ?? null,
    valid_from: b.valid_from ?? null,
    sort_code: b.sort_code ?? null,
    bank_account_number: b.bank_account_number ?? null,
  };
}

const dateText = (v: unknown) => (v instanceof Date ? `${v.getFullYear()}-${String(v.getMonth() + 1).padStart(2, '0')}-${String(v.getDate()).padStart(2, '0')}` : v);

/**
 * Stores a payment instruction for an imported account (docs/api.md, "Payment instructions"), as
 * the platform's validators check it: the supplier must be in the caller's grant and known (else,
 * alike, `import_process_does_not_exist`) and Ongoing; the account's import must exist
 * (`import_process_does_not_exist`) and have made its account (`account_not_found`: staged, under
 * way or failed). Under the account's row lock: an account has at most one active instruction,
 * and every stored one is active (nothing here cancels one), so a second answers
 * `account_has_active_instruction` — unless it is the same instruction again (a retry whose
 * first answer was lost), which answers as the first did. The row is one of the account's rows:
 * it reads back with the account (`payment_instructions`) and its insert forgets the stored
 * digest (migration 0018's triggers). No event: the catalogue has none for a payment instruction.
 */
export async function createPaymentInstruction(db: Knex, ctx: Context, b: PaymentInstructionRequestBody): Promise<PaymentInstructionCreated> {
  const supplier = canAccessSupplier(ctx, b.import_supplier) ? await getSupplier(db, b.import_supplier) : null;
  if (!supplier) throw importProcessDoesNotExist();
  if (supplier.status !== 'Ongoing') {
    throw new DomainError('import_supplier_migration_not_ongoing', `The migration of ${b.import_supplier} is ${supplier.status}: it takes no more data.`);
  }
  if (!(await findProcess(db, b.import_supplier, b.external_account_number))) throw importProcessDoesNotExist();
  const wanted = columnsOf(b);
  return db.transaction(async (trx) => {
    const account = await lockAccountRow(trx, b.import_supplier, b.external_account_number);
    if (!account) {
      throw new DomainError('account_not_found', 'The account has not been created yet: its import is staged, under way or ended without an account. Process it first and wait for COMPLETED (account-transfer-status).');
    }
    const answer = { kraken_account_number: account.number, account_number: account.number, reference: wanted.reference };
    const existing = await paymentInstructionsOf(trx, account.id);
    if (existing.length > 0) {
      const same = existing.length === 1 && Object.entries(wanted).every(([k, v]) => (k === 'valid_from' ? dateText(existing[0]![k]) : existing[0]![k]) === v);
      if (same) return answer;
      throw new DomainError('account_has_active_instruction', 'Account already has an active instruction.');
    }
    await insertPaymentInstruction(trx, {
      account_id: account.id,
      position: 0,
      import_supplier: b.import_supplier,
      ...wanted,
      customer_reference: null,
      instruction_identifier: null,
    });
    return answer;
  });
}

const text = (v: unknown, max: number) => (typeof v === 'string' && v.length <= max ? v : '');

/**
 * The platform's CreatePaymentInstructionError: `error_detail`, and the request's
 * `external_account_number`, `import_supplier` and `reference` (each the empty string when the
 * request gave none usable: an unreadable body, a missing or over-long value); our `code`, and
 * `errors` (the issues) when there are any. Other statuses keep the service's own shape.
 */
export const paymentInstructionErrorBody: ErrorBodyShape = (e, ctx) => {
  if (e.status !== 400) return e.body();
  const raw = ctx?.request.body as Record<string, unknown> | undefined;
  const b = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? raw : {};
  const issues = Array.isArray(e.extra.errors) ? (e.extra.errors as unknown[]) : [];
  return {
    error_detail: issues.length > 0 ? `${e.detail} ${(issues as { attr: string; detail: string }[]).map((i) => `${i.attr}: ${i.detail}`).join(' ')}` : e.detail,
    external_account_number: text(b.external_account_number, 128),
    import_supplier: text(b.import_supplier, 64),
    reference: text(b.reference ?? b.instruction_reference, 128),
    code: e.code,
    ...(issues.length > 0 ? { errors: issues } : {}),
  };
};
