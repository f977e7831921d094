// imports/'s surface for the other features (docs/architecture.md, "Each feature's surface"):
// lint holds another feature's imports of imports/ to this file.
export { type AffectedImport, findProcess, IMPORT_STATUSES, type ImportProcess, importsWithError, trancheCounts } from './store';
export { importProcessDoesNotExist } from './staging';
export { payloadCandidates, payloadsDue, prunePayloadBatch } from './retentionStore';
