/** Library API of `data-import reconcile` (the CLI, benchmarks and tests call it in-process). */
export { runReconcile, formatSummary, ReconcileError, nextLink, DEFAULT_CONCURRENCY, DEFAULT_MAX_PATHS, MAX_BATCH, type ReconcileOptions, type ReconcileSummary } from './run';
export { classify, diffAccounts, diffCanonical, hiddenBankDifferences, isPersonalPath, maskValue, MASK, CLASSES, type AccountClass, type Classified, type DigestRecord, type PathDifference } from './compare';
export { accountTotals, addDecimal, addTotals, emptyTotals, totalsEqual, type Totals } from './totals';
export type { AccountResult } from './state';
