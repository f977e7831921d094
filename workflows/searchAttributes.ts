import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Custom search attributes an operator filters on in the Temporal Web UI, e.g.
 * `ImportSupplier = "DEMO_ENERGY" AND ImportStatus = "ERRORED"`. The start script registers them.
 */
export const ImportSupplierKey = defineSearchAttributeKey('ImportSupplier', SearchAttributeType.KEYWORD);
export const ExternalAccountNumberKey = defineSearchAttributeKey('ExternalAccountNumber', SearchAttributeType.KEYWORD);
export const ImportStatusKey = defineSearchAttributeKey('ImportStatus', SearchAttributeType.KEYWORD);

export const SEARCH_ATTRIBUTE_NAMES = ['ImportSupplier', 'ExternalAccountNumber', 'ImportStatus'] as const;
