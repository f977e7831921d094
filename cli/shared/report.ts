/** What the reports of migrate and reconcile share: their file names and their CSV cells. */

/** RFC 4180 quoting. */
export function csvCell(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/**
 * The prefix of the two report files: `--report night-1.json` (or `.csv`) means `night-1`, not
 * `night-1.json.json` and `night-1.json.csv`.
 */
export function reportPrefixOf(prefix: string): string {
  return prefix.replace(/\.(json|csv)$/i, '');
}
