import { createOperation } from './create';
import { digestsOperation } from './digests';
import { importedAccountOperation } from './importedAccount';
import { statusOperation } from './status';
import { statusesOperation } from './statuses';
import { totalsOperation } from './totals';
import { validateOperation } from './validate';
import { listingOperations } from './listings';
import { processStagedOperation } from './processStaged';
import { stageAccountOperation } from './stageAccount';
import { transferStatusOperation } from './transferStatus';
import { validateAccountOperation } from './validateAccount';

/** The v2 account operations of the spec and the reconciliation's, in the OpenAPI document's order. */
export const importsOperations = [validateOperation, createOperation, statusOperation, statusesOperation, importedAccountOperation, digestsOperation, totalsOperation];

/** The platform's v1 listings of import processes (docs/api.md). */
export const v1ListingOperations = listingOperations;

/** The platform's v1 account import operations: validate-account, the staged import and the transfer status. */
export const v1ImportsOperations = [validateAccountOperation, stageAccountOperation, processStagedOperation, transferStatusOperation];
