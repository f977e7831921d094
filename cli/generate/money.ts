/** Money as integer pence: sums stay exact, and the decimal strings match the schema ("-45.20"). */
export function pence(amount: number): string {
  const sign = amount < 0 ? '-' : '';
  const abs = Math.abs(amount);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}
