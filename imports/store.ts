// The import process's store, as the rest of the code imports it: its row and model
// (imports/rowStore.ts), its reads (imports/readStore.ts) and its writes (imports/writeStore.ts).
export * from './rowStore';
export * from './readStore';
export * from './writeStore';
