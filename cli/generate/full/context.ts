import type { Town } from '../people';
import type { Rng } from '../rng';

/** A JSON object of a full account under construction (the platform's fields beyond account/schema.ts's types). */
export type Json = Record<string, unknown>;

/** What every part of a full account is dated and placed by. */
export interface FullContext {
  rng: Rng;
  today: string;
  /** Last day of the last billed month. */
  lastBilled: string;
  supplyStart: string;
  readingMonths: number;
  town: Town;
  external: string;
}

/**
 * The electricity distributor (MPAN core's first two digits), GSP group, gas LDZ, county and
 * nation of each generator town, so a full account's MPANs and industry data agree with its address.
 */
export const REGIONS: Record<string, { distributor: number; gsp: string; ldz: string; county: string; nation: string }> = {
  Leeds: { distributor: 23, gsp: '_M', ldz: 'NE', county: 'West Yorkshire', nation: 'England' },
  Manchester: { distributor: 16, gsp: '_G', ldz: 'NW', county: 'Greater Manchester', nation: 'England' },
  Birmingham: { distributor: 14, gsp: '_E', ldz: 'WM', county: 'West Midlands', nation: 'England' },
  Bristol: { distributor: 22, gsp: '_L', ldz: 'SW', county: 'Bristol', nation: 'England' },
  Edinburgh: { distributor: 18, gsp: '_N', ldz: 'SC', county: 'City of Edinburgh', nation: 'Scotland' },
  Cardiff: { distributor: 21, gsp: '_K', ldz: 'WS', county: 'South Glamorgan', nation: 'Wales' },
  Glasgow: { distributor: 18, gsp: '_N', ldz: 'SC', county: 'Glasgow City', nation: 'Scotland' },
  'Newcastle upon Tyne': { distributor: 15, gsp: '_F', ldz: 'NO', county: 'Tyne and Wear', nation: 'England' },
  Sheffield: { distributor: 23, gsp: '_M', ldz: 'EM', county: 'South Yorkshire', nation: 'England' },
  Liverpool: { distributor: 13, gsp: '_D', ldz: 'NW', county: 'Merseyside', nation: 'England' },
  London: { distributor: 12, gsp: '_C', ldz: 'NT', county: 'Greater London', nation: 'England' },
  York: { distributor: 23, gsp: '_M', ldz: 'NE', county: 'North Yorkshire', nation: 'England' },
};

export function regionOf(ctx: FullContext) {
  return REGIONS[ctx.town.town]!;
}

/** A decimal with `dp` places (readings, rates: not money, which stays in integer pence). */
export function fixed(value: number, dp: number): string {
  return value.toFixed(dp);
}
