/**
 * The Account payload as the store sees it: the TypeBox-derived type of account/schema.ts, so the
 * store and the validator cannot disagree about field names.
 */
export type { Account } from '../../account/schema';
