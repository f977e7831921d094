/**
 * The one place PostgreSQL errors are classified: by SQLSTATE class and by the constraint they
 * name. Constraint names are knex's defaults for the keys declared in db/migrations/.
 */

/** SQLSTATEs a caller tells apart (PostgreSQL manual, appendix A). */
const UNIQUE_VIOLATION = '23505';
const FOREIGN_KEY_VIOLATION = '23503';
const DUPLICATE_DATABASE = '42P04';
const INVALID_CATALOG_NAME = '3D000';
const UNDEFINED_TABLE = '42P01';
/** character_not_in_repertoire (a NUL byte in a text value) and untranslatable_character. */
const UNSTORABLE_TEXT = new Set(['22021', '22P05']);

/** Unique keys whose violation a caller tells apart from the others. */
export const CONSTRAINT = {
  /** accounts.number: a drawn account number already taken (a retry draws another). */
  accountNumber: 'accounts_number_unique',
  /** accounts (import_supplier, external_account_number): the account was imported already. */
  accountExternalKey: 'accounts_import_supplier_external_account_number_unique',
} as const;

interface PgError {
  code?: unknown;
  constraint?: unknown;
}

/** Errors about the data (class 22 data exception, 23 integrity violation): retrying will not heal them. */
export function isDataError(err: unknown): boolean {
  const code = (err as PgError | null)?.code;
  return typeof code === 'string' && /^(22|23)/.test(code);
}

/** A unique violation, of `constraint` when one is named. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = err as PgError | null;
  return e?.code === UNIQUE_VIOLATION && (constraint === undefined || e.constraint === constraint);
}

/** A foreign key pointing at a row that does not exist. */
export function isForeignKeyViolation(err: unknown): boolean {
  return (err as PgError | null)?.code === FOREIGN_KEY_VIOLATION;
}

/** CREATE DATABASE of a name that exists (two processes racing to create it). */
export function isDuplicateDatabase(err: unknown): boolean {
  return (err as PgError | null)?.code === DUPLICATE_DATABASE;
}

/** A connection to a database that does not exist. */
export function isMissingDatabase(err: unknown): boolean {
  return (err as PgError | null)?.code === INVALID_CATALOG_NAME;
}

/** The name of the constraint `err` violated, if PostgreSQL named one. */
export function violatedConstraint(err: unknown): string | undefined {
  const c = (err as PgError | null)?.constraint;
  return typeof c === 'string' ? c : undefined;
}

/** A table that does not exist: the database was never migrated. */
export function isUndefinedTable(err: unknown): boolean {
  return (err as PgError | null)?.code === UNDEFINED_TABLE;
}

/** A text value PostgreSQL cannot hold (U+0000 above all): the caller's input, not our bug. */
export function isUnstorableText(err: unknown): boolean {
  const code = (err as PgError | null)?.code;
  return typeof code === 'string' && UNSTORABLE_TEXT.has(code);
}
