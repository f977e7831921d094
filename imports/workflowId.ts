/** Workflow id of an account import: business keys, never timestamps (STYLE.md #4). */
export function importWorkflowId(importSupplier: string, externalAccountNumber: string): string {
  return `account-import:${importSupplier}:${externalAccountNumber}`;
}
