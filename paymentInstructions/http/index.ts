// The payment instructions feature's HTTP operation (api/operations.ts places it in the document).
export { paymentInstructionOperation } from './paymentInstruction';
