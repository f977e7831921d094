/**
 * The ordering key of every event about one account (`outbox.ordering_key`), whichever feature
 * writes it: the import's, its registration flows', its customer e-mails' and its top-ups'. It is
 * the account import's workflow id (imports/workflowId.ts returns it): business keys, never a
 * timestamp, so the events of one account keep one order from the outbox to NATS.
 */
export function accountOrderingKey(importSupplier: string, externalAccountNumber: string): string {
  return `account-import:${importSupplier}:${externalAccountNumber}`;
}
