/**
 * Exact decimal arithmetic on the payload's decimal strings (already checked by the schema):
 * money must not drift through floating point.
 */
export interface Scaled {
  units: bigint;
  scale: number;
}

export function parseDecimal(value: string): Scaled {
  const negative = value.startsWith('-');
  const body = negative ? value.slice(1) : value;
  const [int, frac = ''] = body.split('.');
  const units = BigInt(int + frac) * (negative ? -1n : 1n);
  return { units, scale: frac.length };
}

function rescale(a: Scaled, scale: number): bigint {
  return a.units * 10n ** BigInt(scale - a.scale);
}

/** True when the decimals sum to `total` exactly. */
export function sumEquals(values: readonly string[], total: string): boolean {
  const parsed = values.map(parseDecimal);
  const t = parseDecimal(total);
  const scale = Math.max(t.scale, ...parsed.map((p) => p.scale));
  let sum = 0n;
  for (const p of parsed) sum += rescale(p, scale);
  return sum === rescale(t, scale);
}

/** Number of significant integer digits ("04512" → 4, "-0.5" → 0). */
export function integerDigits(value: string): number {
  const body = value.startsWith('-') ? value.slice(1) : value;
  const int = body.split('.')[0].replace(/^0+/, '');
  return int.length;
}
