// The event catalogue (docs/spec/events-catalogue.md) as typed contracts: one TypeBox schema per
// type-version, the TypeScript payload types derived from them, and validation before publishing.
export type { CatalogueEntry } from './entry';
export { entryKey, schemaId } from './entry';
export { CATALOGUE, findEntry, type CatalogueEvent, type EventKey, type EventPayloads, type EventType, type PayloadOf, type VersionOf } from './entries';
export { validatePayload, type PayloadValidation } from './validate';
