/** The median of `xs`, the mean of the middle two rounded to `digits` when their number is even. */
export function median(xs: number[], digits: number): number {
  const v = [...xs].sort((a, b) => a - b);
  return v.length % 2 ? v[(v.length - 1) / 2]! : +((v[v.length / 2 - 1]! + v[v.length / 2]!) / 2).toFixed(digits);
}
