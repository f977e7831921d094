import { createOperation } from './create';
import { digestsOperation } from './digests';
import { importedAccountOperation } from './importedAccount';
import { statusOperation } from './status';
import { statusesOperation } from './statuses';
import { totalsOperation } from './totals';
import { validateOperation } from './validate';

/** The v2 account operations of the spec and the reconciliation's, in the OpenAPI document's order. */
export const importsOperations = [validateOperation, createOperation, statusOperation, statusesOperation, importedAccountOperation, digestsOperation, totalsOperation];
