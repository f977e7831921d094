import crypto from 'node:crypto';
import fs from 'node:fs';

/**
 * A tranche of a book (docs/bulk-migration.md, "Tranches"): a cohort file of external account
 * numbers, a hash bucket (`3/8`: the third of eight) and a sample (`1/100`). `map`, `migrate` and
 * `reconcile` select with this one function on the external account number, the one key all three
 * see, so one selection gives the same accounts in all three, on any machine, in any order.
 */
export interface Tranche {
  cohort?: Set<string>;
  bucket?: { k: number; n: number };
  sample?: { n: number };
}

/** `k/n` with 1 ≤ k ≤ n (a bucket), or `1/n` (a sample); null when the text is not one. */
export function parseFraction(text: string): { k: number; n: number } | null {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  if (!m) return null;
  const k = Number(m[1]);
  const n = Number(m[2]);
  return k >= 1 && n >= 1 && k <= n && n <= 1_000_000 ? { k, n } : null;
}

/** A cohort file: one external account number a line; blank lines and `#` comments skipped. */
export function readCohort(file: string): Set<string> {
  return new Set(
    fs
      .readFileSync(file, 'utf8')
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#')),
  );
}

function hashMod(salt: string, key: string, n: number): number {
  // The first 48 bits of SHA-256: uniform, and the same in every process and version of Node.
  return parseInt(crypto.createHash('sha256').update(`${salt}:${key}`).digest('hex').slice(0, 12), 16) % n;
}

export function inTranche(t: Tranche, externalAccountNumber: string): boolean {
  if (t.cohort && !t.cohort.has(externalAccountNumber)) return false;
  if (t.bucket && hashMod('bucket', externalAccountNumber, t.bucket.n) !== t.bucket.k - 1) return false;
  if (t.sample && hashMod('sample', externalAccountNumber, t.sample.n) !== 0) return false;
  return true;
}

export function trancheSelected(t: Tranche): boolean {
  return t.cohort !== undefined || t.bucket !== undefined || t.sample !== undefined;
}

/**
 * The selection as one text, for a resumable state: a run resumed with another tranche would mix
 * two selections in one state. The cohort counts by its sorted keys' hash, not its file's name.
 */
export function describeTranche(t: Tranche | undefined): string {
  if (!t) return '';
  const parts: string[] = [];
  if (t.cohort) parts.push(`cohort:${crypto.createHash('sha256').update([...t.cohort].sort().join('\n')).digest('hex').slice(0, 16)}`);
  if (t.bucket) parts.push(`bucket:${t.bucket.k}/${t.bucket.n}`);
  if (t.sample) parts.push(`sample:1/${t.sample.n}`);
  return parts.join(' ');
}
