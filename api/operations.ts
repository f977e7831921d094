import type { Operation } from '../http/operation';
import type { RouterDeps } from './deps';
import { importsOperations, v1ImportsOperations, v1ListingOperations } from '../imports/http';
import { meterPointStatusesOperation, sendRegistrationFlowsOperation } from '../registration/http';
import { paymentInstructionOperation } from '../paymentInstructions/http';
import { notesOperation, statementsOperation, transactionsOperation } from '../topUps/http';
import { tokenOperation } from '../auth/http/token';
import { healthOperations } from './health';
import { documentOperations } from './documents';

/**
 * Every HTTP operation of the API, from the features' lists, in the OpenAPI document's order: the
 * one registry the router (api/router.ts) mounts and the document (api/openapi.ts) is built from.
 * An operation lives whole in its feature (http/operation.ts); a feature's list is named here once.
 */
export const OPERATIONS: Operation<RouterDeps>[] = [
  ...importsOperations,
  sendRegistrationFlowsOperation,
  // The platform's other data-import operations (docs/api.md), each from its feature.
  ...v1ListingOperations,
  meterPointStatusesOperation,
  transactionsOperation,
  ...v1ImportsOperations,
  paymentInstructionOperation,
  notesOperation,
  statementsOperation,
  tokenOperation,
  ...healthOperations,
  ...documentOperations,
];
