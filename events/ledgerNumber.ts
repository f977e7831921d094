/**
 * A ledger's number in events (`billing.ledger.entry_posted`'s `ledger.number`,
 * `deposit_agreement.*`'s `ledger_identifier`): the account number and the ledger's place in the
 * imported payload, 1-based (`A-3F9C21B7-L1`). The top-level ledger form is the account's one ledger, L1.
 */
export const ledgerNumber = (accountNumber: string, position: number) => `${accountNumber}-L${position + 1}`;
