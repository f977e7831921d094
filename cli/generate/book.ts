import type { Account } from '../../account/schema';
import { londonToday } from '../../account/dates';
import { DEFAULT_SUPPLIER, generateAccount } from './account';
import type { Profile } from './profiles';
import { createRng } from './rng';
import { DEFAULT_VIOLATION_CODES, violationsFor, type ExpectedError } from './violations';

export interface BookOptions {
  seed: string | number;
  count: number;
  supplier?: string;
  /** External account numbers are `<prefix><n>`, n zero-padded to six digits; default `GEN-`. */
  prefix?: string;
  /** First n; default 1 (a second book can continue where the first stopped). */
  start?: number;
  /** `YYYY-MM-DD`; default today in Europe/London. */
  today?: string;
  profile?: Profile;
  /** Share of accounts (0..1) that get one violation each; default 0. */
  invalidShare?: number;
  /** Violation codes, used in turn; default DEFAULT_VIOLATION_CODES. */
  violations?: readonly string[];
}

export interface BookEntry {
  account: Account;
  /** Set when a violation was injected: the one error the validator must report. */
  expected?: ExpectedError;
}

export const DEFAULT_PREFIX = 'GEN-';

export function externalAccountNumber(prefix: string, n: number): string {
  return `${prefix}${String(n).padStart(6, '0')}`;
}

/**
 * The book, one account at a time (nothing is held beyond the current account). Account i draws
 * from its own stream `<seed>/<i>`, so it does not depend on the count or on other accounts.
 * Invalid accounts are spread evenly: account i is invalid when ⌊(i+1)·share⌋ > ⌊i·share⌋, which
 * gives exactly ⌊count·share⌋ of them; the k-th invalid account gets violation k mod |violations|.
 */
export function* generateBookEntries(opts: BookOptions): Generator<BookEntry> {
  const share = opts.invalidShare ?? 0;
  if (!(share >= 0 && share <= 1)) throw new Error('invalidShare must be between 0 and 1');
  const violations = violationsFor(opts.violations ?? DEFAULT_VIOLATION_CODES);
  if (share > 0 && violations.length === 0) throw new Error('an invalid share needs at least one violation code');
  const today = opts.today ?? londonToday(new Date());
  const prefix = opts.prefix ?? DEFAULT_PREFIX;
  const start = opts.start ?? 1;
  const root = createRng(opts.seed);
  // Float products such as 0.29 × 100 land just below an integer: nudge before flooring.
  const invalidBefore = (i: number) => Math.floor(i * share + 1e-9);
  for (let i = 0; i < opts.count; i++) {
    const invalid = invalidBefore(i + 1) > invalidBefore(i);
    const violation = invalid ? violations[invalidBefore(i) % violations.length] : undefined;
    const account = generateAccount(root.fork(i), {
      externalAccountNumber: externalAccountNumber(prefix, start + i),
      supplier: opts.supplier ?? DEFAULT_SUPPLIER,
      today,
      profile: opts.profile ?? 'typical',
      require: violation?.require,
    });
    if (!violation) {
      yield { account };
      continue;
    }
    const attr = violation.apply(account, { today });
    yield { account, expected: { code: violation.code, attr } };
  }
}

/** The accounts of the book (see generateBookEntries). */
export function* generateBook(opts: BookOptions): Generator<Account> {
  for (const entry of generateBookEntries(opts)) yield entry.account;
}
