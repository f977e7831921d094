import type { Static } from '@sinclair/typebox';
import { ACCOUNT_EVENTS } from './accounts';
import { AGREEMENT_EVENTS } from './agreements';
import { BILLING_EVENTS } from './billing';
import { COLLECTION_EVENTS } from './collections';
import { COMMS_EVENTS } from './comms';
import { CONSENT_EVENTS } from './consents';
import { DATA_IMPORT_EVENTS } from './dataImport';
import { entryKey, type CatalogueEntry } from './entry';
import { FLEX_EVENTS } from './flex';
import { INDUSTRY_EVENTS } from './industry';
import { INTERFACE_EVENTS } from './interfaces';
import { LIFECYCLE_JOIN_EVENTS } from './lifecycleJoin';
import { LIFECYCLE_LEAVE_EVENTS } from './lifecycleLeave';

// In the spec's section order, so generated documents read in the same order as the spec.
const ENTRIES = [
  ...ACCOUNT_EVENTS,
  ...AGREEMENT_EVENTS,
  ...INTERFACE_EVENTS,
  ...BILLING_EVENTS,
  ...COLLECTION_EVENTS,
  ...COMMS_EVENTS,
  ...CONSENT_EVENTS,
  ...DATA_IMPORT_EVENTS,
  ...FLEX_EVENTS,
  ...INDUSTRY_EVENTS,
  ...LIFECYCLE_JOIN_EVENTS,
  ...LIFECYCLE_LEAVE_EVENTS,
] as const;

type AnyEntry = (typeof ENTRIES)[number];

/** `"<type>-<version>"` → payload type, for every entry of the catalogue. */
export type EventPayloads = {
  [E in AnyEntry as `${E['type']}-${E['version']}`]: Static<E['schema']>;
};
export type EventKey = keyof EventPayloads;

/**
 * One event of the catalogue as a builder writes it: its type, its version and the payload its
 * schema describes, as one union discriminated by type and version. A payload with a field the
 * schema does not have, without one it requires, or of another type, does not compile.
 */
export type CatalogueEvent = {
  [E in AnyEntry as `${E['type']}-${E['version']}`]: { type: E['type']; version: E['version']; data: Static<E['schema']> };
}[EventKey];

/** Every event type of the catalogue. */
export type EventType = CatalogueEvent['type'];
/** The versions the catalogue has of one event type. */
export type VersionOf<T extends EventType> = Extract<CatalogueEvent, { type: T }>['version'];
/** The payload of one type and version: `EventPayloads["<type>-<version>"]`, looked up by its two parts. */
export type PayloadOf<T extends EventType, V extends string> = Extract<CatalogueEvent, { type: T; version: V }>['data'];

export const CATALOGUE: readonly CatalogueEntry[] = ENTRIES;

const BY_KEY: ReadonlyMap<string, CatalogueEntry> = new Map(
  CATALOGUE.map((entry) => [entryKey(entry.type, entry.version), entry]),
);
if (BY_KEY.size !== CATALOGUE.length) {
  // A duplicated type-version would make findEntry silently pick one; fail at load instead.
  throw new Error('events catalogue: a type-version is listed twice');
}

export function findEntry(type: string, version: string): CatalogueEntry | undefined {
  return BY_KEY.get(entryKey(type, version));
}
