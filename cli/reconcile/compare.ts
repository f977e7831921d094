import { canonicalAccount } from '../../account/canonical';
import { BANK_DETAIL_FIELDS, maskBankDetails, maskTail } from '../../account/bankDetails';

/**
 * The pure part of `data-import reconcile`: the class of an account from what the bulk digest
 * operation answered, the paths where the stored account differs from the book's (both in
 * canonical form), with the values of personal fields masked, and the totals of an account.
 */

export const CLASSES = ['matched', 'missing', 'not_final', 'failed', 'mismatched'] as const;
export type AccountClass = (typeof CLASSES)[number];

/** One record of the bulk digest operation (`results[]`); absent: the number was in `not_found`. */
export interface DigestRecord {
  status: string;
  kraken_identifier: string | null;
  latest_error: { code?: string } | null;
  digest: string | null;
}

export interface Classified {
  class: AccountClass;
  /** The import status (null: no import process). */
  status: string | null;
  /** For `failed`: the import's error code (latest_error.code), or what stands for it. */
  errorCode: string | null;
}

/** Imports that will change no more without a new create. Not final: PENDING, IN_PROGRESS. */
const NOT_FINAL = new Set(['PENDING', 'IN_PROGRESS']);

/**
 * The class of a book account, `bookDigest` being the digest of its canonical form:
 * - missing: no import process, only a dry run (DRY_RUN_SUCCEEDED: never really imported), or
 *   only staged (STAGED: stored by the platform's v1 create-or-update, never processed);
 * - not_final: PENDING or IN_PROGRESS;
 * - failed: ERRORED, CANCELLED, DRY_RUN_ERRORED (with latest_error.code, else the status in lower
 *   case), or PROCESSED with no account in the tables (`account_not_found`);
 * - matched: PROCESSED and the stored account's digest is the book's;
 * - mismatched: PROCESSED and the digests differ (the paths come from diffAccounts).
 */
export function classify(record: DigestRecord | undefined, bookDigest: string): Classified {
  if (!record) return { class: 'missing', status: null, errorCode: null };
  const status = record.status;
  if (status === 'DRY_RUN_SUCCEEDED' || status === 'STAGED') return { class: 'missing', status, errorCode: null };
  if (NOT_FINAL.has(status)) return { class: 'not_final', status, errorCode: null };
  if (status !== 'PROCESSED') return { class: 'failed', status, errorCode: record.latest_error?.code ?? status.toLowerCase() };
  if (record.digest === null) return { class: 'failed', status, errorCode: 'account_not_found' };
  return { class: record.digest === bookDigest ? 'matched' : 'mismatched', status, errorCode: null };
}

/**
 * Fields whose values are personal data, never written to a report or the terminal: a path is
 * personal when one of its keys is one of these (a PSR record is health data: all of it).
 */
export const PERSONAL_FIELDS: ReadonlySet<string> = new Set([
  'given_name',
  'family_name',
  'email',
  'mobile',
  'landline',
  'date_of_birth',
  'title',
  'salutation',
  'billing_name',
  'billing_address1',
  'billing_address2',
  'billing_address3',
  'billing_address4',
  'billing_address5',
  'billing_postcode',
  'supply_address1',
  'supply_address2',
  'supply_address3',
  'supply_address4',
  'supply_address5',
  'supply_postcode',
  'body',
  'psr',
  'property_administrators',
]);

/** Whole objects (or arrays of them) that hold personal fields: present on one side only, masked whole. */
const PERSONAL_OBJECTS = /^(customers|supply_addresses)(\.\d+)?$/;

/** What a masked value is written as. Absent stays absent (null): that a value is missing is no secret. */
export const MASK = '<masked>';

/** True when the value at `path` (dot path, as the API's `attr`) is personal. */
export function isPersonalPath(path: string): boolean {
  const keys = path.split('.');
  if (keys.some((k) => PERSONAL_FIELDS.has(k))) return true;
  if (PERSONAL_OBJECTS.test(path)) return true;
  // metadata.N.value…: free-form, may hold anything.
  return keys[0] === 'metadata' && keys[2] === 'value';
}

/** How many trailing characters of the bank detail at `path` (`payment_instructions.N.sort_code`…) a report shows; undefined: not one. */
function bankDetailKeep(path: string): number | undefined {
  const m = /^payment_instructions\.\d+\.([a-z_]+)$/.exec(path);
  return m && Object.hasOwn(BANK_DETAIL_FIELDS, m[1]!) ? BANK_DETAIL_FIELDS[m[1]!] : undefined;
}

/**
 * The value at `path` as a report shows it: personal values `<masked>`; a bank detail masked as
 * the read-back masks it (account/bankDetails.ts: `****99`), whether it was compared in clear or not.
 */
export function maskValue(path: string, value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (isPersonalPath(path)) return MASK;
  const keep = bankDetailKeep(path);
  return keep !== undefined && typeof value === 'string' ? maskTail(value, keep) : value;
}

export interface PathDifference {
  path: string;
  /** The book's value (canonical form), masked when personal; null when absent. */
  source: unknown;
  /** The stored value, likewise. */
  platform: unknown;
  /**
   * Set when the read-back was masked (the key may not reveal bank details) and the masked forms
   * agree: the account differs within the masked characters of this bank detail, or of another
   * listed with it (hiddenBankDifferences).
   */
  within_mask?: true;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The leaf paths where two canonical accounts differ, in key order, at most `limit` of them (the
 * count of all is returned too). A value present on one side only is one difference at its path
 * (a whole object or array, not each of its leaves); arrays are compared position by position.
 * `shown`: trees of the same shape whose values the paths report instead (the two accounts with
 * their bank details masked, when they are compared in clear).
 */
export function diffCanonical(source: unknown, platform: unknown, limit = 50, shown?: { source: unknown; platform: unknown }): { paths: PathDifference[]; count: number } {
  const paths: PathDifference[] = [];
  let count = 0;
  const child = (v: unknown, k: string | number): unknown => (typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[k] : undefined);
  const walk = (a: unknown, b: unknown, sa: unknown, sb: unknown, path: string) => {
    if (isObject(a) && isObject(b)) {
      const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
      for (const k of keys) walk(a[k], b[k], child(sa, k), child(sb, k), path === '' ? k : `${path}.${k}`);
      return;
    }
    if (Array.isArray(a) && Array.isArray(b)) {
      for (let i = 0; i < Math.max(a.length, b.length); i++) walk(a[i], b[i], child(sa, i), child(sb, i), path === '' ? String(i) : `${path}.${i}`);
      return;
    }
    if (JSON.stringify(a) === JSON.stringify(b)) return;
    count++;
    if (paths.length < limit) paths.push({ path, source: maskValue(path, sa), platform: maskValue(path, sb) });
  };
  walk(source, platform, shown ? shown.source : source, shown ? shown.platform : platform, '');
  return { paths, count };
}

/**
 * diffCanonical of the canonical forms of the book's account and the stored one. The read-back
 * masks bank details (account/bankDetails.ts) unless revealed (`revealed`: the stored account was
 * read with `?reveal=bank_details`):
 * - revealed: compared in clear, so a difference in any character is found; reported masked;
 * - masked: the book's are masked the same way before comparing, so they differ only where the
 *   masked forms do (the digest, which covers the clear values, has already said the account
 *   differs somewhere; hiddenBankDifferences names where when nothing else does).
 */
export function diffAccounts(book: unknown, stored: unknown, limit = 50, opts: { revealed?: boolean } = {}): { paths: PathDifference[]; count: number } {
  const b = canonicalAccount(book);
  const s = canonicalAccount(stored);
  if (opts.revealed === true) return diffCanonical(b, s, limit, { source: maskBankDetails(b), platform: maskBankDetails(s) });
  return diffCanonical(maskBankDetails(b), maskBankDetails(s), limit);
}

/**
 * For a mismatched account read back masked whose masked forms agree everywhere (diffAccounts
 * found nothing): the difference is within the masked characters of a bank detail. Every bank
 * detail present on either side, at its path, masked, marked `within_mask` (at most `limit`;
 * all counted). A key given the permission (`data-import api-keys permit <id>
 * --reveal-bank-details`) gets the exact path instead.
 */
export function hiddenBankDifferences(book: unknown, stored: unknown, limit = 50): { paths: PathDifference[]; count: number } {
  const list = (a: unknown): unknown[] => {
    const v = (canonicalAccount(a) as { payment_instructions?: unknown } | null)?.payment_instructions;
    return Array.isArray(v) ? v : [];
  };
  const b = list(book);
  const s = list(stored);
  const paths: PathDifference[] = [];
  let count = 0;
  for (let i = 0; i < Math.max(b.length, s.length); i++) {
    for (const field of Object.keys(BANK_DETAIL_FIELDS)) {
      const path = `payment_instructions.${i}.${field}`;
      const source = maskValue(path, (b[i] as Record<string, unknown> | undefined)?.[field]);
      const platform = maskValue(path, (s[i] as Record<string, unknown> | undefined)?.[field]);
      if (source === null && platform === null) continue;
      count++;
      if (paths.length < limit) paths.push({ path, source, platform, within_mask: true });
    }
  }
  return { paths, count };
}
