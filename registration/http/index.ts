// The registration feature's HTTP operations (api/operations.ts places them in the document).
export { sendRegistrationFlowsOperation } from './sendFlows';
export { meterPointStatusesOperation } from './meterPointStatuses';
