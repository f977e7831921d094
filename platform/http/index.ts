import { listingOperations } from './listings';
import { meterPointStatusesOperation } from './meterPointStatuses';
import { notesOperation } from './notes';
import { paymentInstructionOperation } from './paymentInstruction';
import { processStagedOperation } from './processStaged';
import { stageAccountOperation } from './stageAccount';
import { statementsOperation } from './statements';
import { transactionsOperation } from './transactions';
import { transferStatusOperation } from './transferStatus';
import { validateAccountOperation } from './validateAccount';

/** The platform's other data-import operations (docs/api.md), in the OpenAPI document's order. */
export const platformOperations = [
  ...listingOperations,
  meterPointStatusesOperation,
  transactionsOperation,
  validateAccountOperation,
  stageAccountOperation,
  processStagedOperation,
  transferStatusOperation,
  paymentInstructionOperation,
  notesOperation,
  statementsOperation,
];
