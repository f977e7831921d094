import { InvalidArgumentError, Option } from 'commander';
import { parseFraction, readCohort, type Tranche } from '../../lib/tranche';

/**
 * The tranche options `map`, `migrate` and `reconcile` share (lib/tranche.ts selects): a cohort
 * file, a hash bucket and a sample, on the external account number.
 */
export interface TrancheOptions {
  cohort?: string;
  bucket?: { k: number; n: number };
  sample?: { k: number; n: number };
}

function fraction(what: string, one: boolean) {
  return (value: string) => {
    const f = parseFraction(value);
    if (!f || (one && f.k !== 1)) throw new InvalidArgumentError(one ? `expected 1/n (${what}).` : `expected k/n with 1 ≤ k ≤ n (${what}).`);
    return f;
  };
}

export const cohortOption = (): Option => new Option('--cohort <file>', 'only the accounts whose external account number is a line of this file (# comments allowed)');

export const bucketOption = (): Option =>
  new Option('--bucket <k/n>', 'only hash bucket k of n of the external account numbers (3/8: the third of eight; the same accounts in map, migrate and reconcile)').argParser(fraction('a bucket', false));

export const sampleOption = (): Option => new Option('--sample <1/n>', 'only a hash sample of about one account in n of the external account numbers (the same accounts in map, migrate and reconcile)').argParser(fraction('a sample', true));

export function trancheFrom(o: TrancheOptions): Tranche | undefined {
  if (!o.cohort && !o.bucket && !o.sample) return undefined;
  return { cohort: o.cohort ? readCohort(o.cohort) : undefined, bucket: o.bucket, sample: o.sample ? { n: o.sample.n } : undefined };
}
