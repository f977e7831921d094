import type { Operation } from '../http/operation';
import type { RouterDeps } from './deps';
import { importsOperations } from '../imports/http';
import { sendRegistrationFlowsOperation } from '../registration/http/sendFlows';
import { platformOperations } from '../platform/http';
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
  ...platformOperations,
  tokenOperation,
  ...healthOperations,
  ...documentOperations,
];
