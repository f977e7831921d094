/**
 * Workflow id of one send-registration-flows request: business keys, never timestamps, so a
 * concurrent double request joins the same run (docs/spec/STYLE.md #4).
 */
export function registrationFlowsWorkflowId(importSupplier: string, externalAccountNumber: string, supplyStartDate: string | null): string {
  return `registration-flows:${importSupplier}:${externalAccountNumber}:${supplyStartDate ?? 'earliest'}`;
}
