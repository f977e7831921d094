/** Industry check digits of supply point identifiers (docs/spec/RULES.md, "Domain"). */

const MPAN_PRIMES = [3, 5, 7, 13, 17, 19, 23, 29, 31, 37, 41, 43];

/** MPAN core: 13 digits, distributor id 10–36, check digit = Σ dᵢ·pᵢ mod 11 mod 10. */
export function isValidMpan(core: string): boolean {
  if (!/^\d{13}$/.test(core)) return false;
  const distributor = Number(core.slice(0, 2));
  if (distributor < 10 || distributor > 36) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += (core.charCodeAt(i) - 48) * MPAN_PRIMES[i];
  return (sum % 11) % 10 === core.charCodeAt(12) - 48;
}

/** MPRN: 6–10 digits; the last two = Σ over the body of digit × (n − i) mod 11, as two digits. */
export function isValidMprn(mprn: string): boolean {
  if (!/^\d{6,10}$/.test(mprn)) return false;
  const body = mprn.slice(0, -2);
  const n = body.length;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += (body.charCodeAt(i) - 48) * (n - i);
  return String(sum % 11).padStart(2, '0') === mprn.slice(-2);
}
