// The top-ups feature's HTTP operations: transactions, notes and historical statements of an
// imported account (api/operations.ts places them in the document).
export { notesOperation } from './notes';
export { statementsOperation } from './statements';
export { transactionsOperation } from './transactions';
