import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Custom search attributes an operator filters on in the Temporal Web UI, e.g.
 * `ImportSupplier = "DEMO_ENERGY" AND ImportStatus = "ERRORED"`. scripts/lib/common.sh registers them
 * (SEARCH_ATTRIBUTES there; test/unit/searchAttributes.test.ts keeps the two lists equal).
 */
export const ImportSupplierKey = defineSearchAttributeKey('ImportSupplier', SearchAttributeType.KEYWORD);
export const ExternalAccountNumberKey = defineSearchAttributeKey('ExternalAccountNumber', SearchAttributeType.KEYWORD);
export const ImportStatusKey = defineSearchAttributeKey('ImportStatus', SearchAttributeType.KEYWORD);
