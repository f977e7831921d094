import { validateAccountDetails } from 'uk-modulus-check';
import type { Rng } from './rng';

/**
 * Identifiers with their real check digits: supply point identifiers (docs/spec/RULES.md,
 * account/rules/supplyPointIds.ts), bank details (VocaLink's modulus check, the same package as
 * account/rules/paymentInstructions.ts), VAT numbers (HMRC's mod 97), DCC device ids (EUI-64).
 */

const MPAN_PRIMES = [3, 5, 7, 13, 17, 19, 23, 29, 31, 37, 41, 43];

function digits(rng: Rng, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += String(rng.int(0, 9));
  return s;
}

/** An MPAN core: GB distributor id (10–23; random unless given), ten random digits, check digit. */
export function mpan(rng: Rng, distributor?: number): string {
  const body = String(distributor ?? rng.int(10, 23)) + digits(rng, 10);
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

/**
 * Sort codes of real UK bank branches that VocaLink's weight table lists (a sort code it does not
 * list passes any account number unchecked: no use for realistic data).
 */
const SORT_CODES = ['200000', '404784', '601613', '309457', '070436', '089999', '830608', '090128', '560003', '110001'] as const;

/** A sort code and an 8-digit account number that pass the modulus check together. */
export function bankDetails(rng: Rng): { sortCode: string; accountNumber: string } {
  const sortCode = rng.pick(SORT_CODES);
  // About one account number in ten passes a table-listed sort code's check.
  for (let attempt = 0; attempt < 1_000; attempt++) {
    const accountNumber = digits(rng, 8);
    if (validateAccountDetails(sortCode, accountNumber)) return { sortCode, accountNumber };
  }
  throw new Error(`no account number passing the modulus check for sort code ${sortCode}`);
}

/**
 * A GB VAT registration number ("GB" and 9 digits): 7 digits weighted 8…2, then the two check
 * digits that bring the sum to a multiple of 97 (HMRC's original scheme).
 */
export function vatNumber(rng: Rng): string {
  const body = String(rng.int(1, 9)) + digits(rng, 6);
  let sum = 0;
  for (let i = 0; i < 7; i++) sum += Number(body[i]) * (8 - i);
  return `GB${body}${String((97 - (sum % 97)) % 97).padStart(2, '0')}`;
}

/**
 * A Companies House number: a company's 8 digits in England and Wales ("SC" and 6 digits in
 * Scotland), a limited liability partnership's "OC" and 6 digits ("SO" in Scotland).
 */
export function companyNumber(rng: Rng, scotland: boolean, llp = false): string {
  if (llp) return `${scotland ? 'SO' : 'OC'}${digits(rng, 6)}`;
  return scotland ? `SC${digits(rng, 6)}` : `${rng.pick(['0', '1'])}${digits(rng, 7)}`;
}

/** Organisationally unique identifiers that open the EUI-64s of GB smart metering devices. */
const DEVICE_OUIS = ['00-0D-6F', '70-B3-D5', '00-1B-C5'] as const;

/** A DCC device id: an EUI-64 written as 8 hyphen-separated hex octets ("00-0D-6F-00-0A-1B-2C-3D"). */
export function smartDeviceId(rng: Rng): string {
  const octets: string[] = [];
  for (let i = 0; i < 5; i++) octets.push(rng.int(0, 255).toString(16).toUpperCase().padStart(2, '0'));
  return `${rng.pick(DEVICE_OUIS)}-${octets.join('-')}`;
}

/** `n` random decimal digits (a reference number's body). */
export function randomDigits(rng: Rng, n: number): string {
  return digits(rng, n);
}
