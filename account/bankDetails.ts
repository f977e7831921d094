/**
 * Bank details on read-back (issue 47 item 5): the account read-back (`GET …/account/`) shows a
 * payment instruction's sort code and bank account number masked — every character but the last
 * two of a sort code and the last four of an account number replaced by `*`, the length kept, so an
 * operator can still tell two apart — unless the caller asks (`?reveal=bank_details`) and its API
 * key may (docs/security.md "Bank details"). Only the answer is masked: the stored account and its
 * digest hold the clear values, so a book's digest still matches. `data-import reconcile` compares
 * in clear when its key may reveal, else masks the book's side the same way, and reports them masked
 * either way (cli/reconcile/readBack.ts). The platform's Account (account/platformAccount.json) has
 * no other field holding a sort code, account number or IBAN (`billing_address.sorting_code` is a
 * postal sorting code); the payment-instruction operation answers none.
 */

/** The fields masked, and how many trailing characters each keeps. */
export const BANK_DETAIL_FIELDS: Readonly<Record<string, number>> = { sort_code: 2, bank_account_number: 4 };

/** `value` with all but its last `keep` characters replaced by `*`. */
export function maskTail(value: string, keep: number): string {
  return value.length <= keep ? '*'.repeat(value.length) : '*'.repeat(value.length - keep) + value.slice(-keep);
}

/** A copy of `account` (an Account in any shape) with the bank details of its payment instructions masked; anything else untouched. */
export function maskBankDetails<T>(account: T): T {
  const instructions = (account as { payment_instructions?: unknown } | null)?.payment_instructions;
  if (!Array.isArray(instructions) || instructions.length === 0) return account;
  const masked = instructions.map((item: unknown) => {
    if (typeof item !== 'object' || item === null) return item;
    const copy = { ...(item as Record<string, unknown>) };
    for (const [field, keep] of Object.entries(BANK_DETAIL_FIELDS)) {
      const v = copy[field];
      if (typeof v === 'string') copy[field] = maskTail(v, keep);
    }
    return copy;
  });
  return { ...(account as object), payment_instructions: masked } as T;
}
