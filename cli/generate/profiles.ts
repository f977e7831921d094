import type { Rng } from './rng';

/**
 * Sizes of generated accounts. `typical` is about the size of the shared example account;
 * `large` is a long-standing dual-fuel household with two properties; `mixed` draws each account
 * from the two (mostly typical, as a real book is).
 */
export const PROFILES = ['typical', 'large', 'mixed'] as const;
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

export const PROFILE_SIZES: Record<ConcreteProfile, ProfileSizes> = {
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

/** Share of large accounts in a `mixed` book. */
const MIXED_LARGE_SHARE = 0.15;

export function resolveProfile(profile: Profile, rng: Rng): ConcreteProfile {
  if (profile !== 'mixed') return profile;
  return rng.chance(MIXED_LARGE_SHARE) ? 'large' : 'typical';
}
