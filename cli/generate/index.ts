/** Library API of `data-import generate` (benchmarks and tests use it in-process). */
export { createRng, type Rng } from './rng';
export { generateAccount, DEFAULT_SUPPLIER, type GenerateAccountOptions, type RequiredFeatures } from './account';
export { generateBook, generateBookEntries, externalAccountNumber, DEFAULT_PREFIX, type BookEntry, type BookOptions } from './book';
export { MIXED_SHARES, PROFILES, PROFILE_SIZES, type Profile } from './profiles';
export { VIOLATIONS, DEFAULT_VIOLATION_CODES, violationsFor, type ExpectedError, type Violation } from './violations';
export { writeBook, type WriteBookOptions, type WriteBookSummary } from './write';
export { accountPaths, ALTERNATIVES, NEVER_CARRIED, under, type AccountPaths, type Alternative } from './full/paths';
