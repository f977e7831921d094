import { accountOrderingKey } from '../events/orderingKey';

/**
 * Workflow id of an account import: business keys, never timestamps, so a retried start finds the
 * same workflow. The same string orders the account's events (events/orderingKey.ts): it is
 * written once, there.
 */
export function importWorkflowId(importSupplier: string, externalAccountNumber: string): string {
  return accountOrderingKey(importSupplier, externalAccountNumber);
}
