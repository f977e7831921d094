import type { Rng } from './rng';

/**
 * Sizes of generated accounts. `typical` is about the size of the shared example account;
 * `large` is a long-standing dual-fuel household with two properties; `full` is a typical-sized
 * account that carries every field path of the platform's Account (cli/generate/full/); `mixed`
 * draws each account from the three (mostly typical, as a real book is).
 */
export const PROFILES = ['typical', 'large', 'full', 'mixed'] as const;
export type Profile = (typeof PROFILES)[number];
export type ConcreteProfile = Exclude<Profile, 'mixed'>;

export interface ProfileSizes {
  customers: [number, number];
  /** Supply addresses; each is dual fuel in `large`. */
  supplyAddresses: number;
  /** Months of monthly reading history per register. */
  readingMonths: [number, number];
  transactions: [number, number];
  ledgers: [number, number];
  notes: [number, number];
  statements: [number, number];
}

/** Sizes of the typical and large profiles (a full account's shape is cli/generate/full/'s). */
export const PROFILE_SIZES: Record<Exclude<ConcreteProfile, 'full'>, ProfileSizes> = {
  typical: {
    customers: [1, 2],
    supplyAddresses: 1,
    readingMonths: [12, 24],
    transactions: [20, 200],
    ledgers: [1, 1],
    notes: [0, 3],
    statements: [1, 6],
  },
  large: {
    customers: [2, 2],
    supplyAddresses: 2,
    readingMonths: [36, 36],
    transactions: [500, 1200],
    ledgers: [1, 2],
    notes: [5, 15],
    statements: [12, 24],
  },
};

/** Shares of large and full accounts in a `mixed` book; the rest are typical. */
export const MIXED_SHARES = { large: 0.15, full: 0.1 } as const;

export function resolveProfile(profile: Profile, rng: Rng): ConcreteProfile {
  if (profile !== 'mixed') return profile;
  const roll = rng.next();
  if (roll < MIXED_SHARES.large) return 'large';
  return roll < MIXED_SHARES.large + MIXED_SHARES.full ? 'full' : 'typical';
}
