/** Library API of `data-import map` (docs/bulk-migration.md, "From a legacy extract"). */
export { runMap, MapRunError, type MapOptions, type MapSummary } from './run';
export { sizeBytes } from './engine';
export { loadMapping, parseMapping, MappingError } from './load';
export { readTable, tableFiles, decode, type Row } from './extract';
export { parseCsvText } from './csv';
export { convertValue } from './convert';
export { MAP_CODES, type MapIssue } from './issues';
export { groupIssues, type MapStats } from './report';
export type { ObjectStats } from './objectStats';
export { skeleton } from './init';
export { profileExtract, type TableProfile } from './profile';
export { legacyExtractMapping, writeLegacyExtract } from './legacyExtract';
export { mapMainThreadHeap } from './threads';
