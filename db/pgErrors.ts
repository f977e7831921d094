/**
 * The one place PostgreSQL errors are classified: by SQLSTATE class and by the constraint they
 * name. Constraint names are knex's defaults for the keys declared in db/migrations/.
 */

/** SQLSTATE 23505 unique_violation. */
export const UNIQUE_VIOLATION = '23505';

/** Unique keys whose violation a caller tells apart from the others. */
export const CONSTRAINT = {
  /** accounts.number: a drawn account number already taken (a retry draws another). */
  accountNumber: 'accounts_number_unique',
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

/** The name of the constraint `err` violated, if PostgreSQL named one. */
export function violatedConstraint(err: unknown): string | undefined {
  const c = (err as PgError | null)?.constraint;
  return typeof c === 'string' ? c : undefined;
}
