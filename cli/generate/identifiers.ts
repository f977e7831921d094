import type { Rng } from './rng';

/** Supply point identifiers with the check digits of docs/spec/RULES.md (account/rules/supplyPointIds.ts). */

const MPAN_PRIMES = [3, 5, 7, 13, 17, 19, 23, 29, 31, 37, 41, 43];

function digits(rng: Rng, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += String(rng.int(0, 9));
  return s;
}

/** An MPAN core: GB distributor id (10–23), ten random digits, check digit. */
export function mpan(rng: Rng): string {
  const body = String(rng.int(10, 23)) + digits(rng, 10);
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(body[i]) * MPAN_PRIMES[i]!;
  return body + String((sum % 11) % 10);
}

/** A ten-digit MPRN: eight body digits (no leading zero) and the two check digits. */
export function mprn(rng: Rng): string {
  const body = String(rng.int(1, 9)) + digits(rng, 7);
  let sum = 0;
  for (let i = 0; i < body.length; i++) sum += Number(body[i]) * (body.length - i);
  return body + String(sum % 11).padStart(2, '0');
}

/** The same identifier with its last (check) digit changed: always invalid. */
export function breakCheckDigit(identifier: string): string {
  const last = Number(identifier[identifier.length - 1]);
  return identifier.slice(0, -1) + String((last + 1) % 10);
}

/** An electricity meter serial in the common "yyLnnnnnnn" style. */
export function electricityMeterSerial(rng: Rng): string {
  return `${rng.int(10, 25)}${rng.pick(['L', 'K', 'M', 'P'])}${digits(rng, 7)}`;
}

export function gasMeterSerial(rng: Rng): string {
  return `G4${rng.pick(['A', 'K', 'E'])}${digits(rng, 8)}`;
}
