/** The RESULTS.md section of the reconciliation benchmark (bench/reconcile.ts). */
type Json = Record<string, any> | null; // eslint-disable-line @typescript-eslint/no-explicit-any
type Table = (rows: Record<string, unknown>[]) => string;

export function reconcileSection(r: Json, table: Table): string[] {
  const out = ['\n## Reconciliation — `npm run bench:reconcile`\n'];
  if (!r) return [...out, '_not run yet_\n'];
  const runs: Json[] = r.runs ?? [r];
  out.push(
    `Measured ${r.date} (${r.note ?? ''}): a database of N imported accounts loaded as \`bench:scale\` loads it, and \`data-import reconcile\` (its own process, the build) of the whole book of those N accounts against the API process. Targets (issue 25): ≥ 1,000 accounts/s, client peak RSS ≤ 300 MiB whatever the book's size.\n\n`,
  );
  out.push(
    table(
      runs.map((x) => ({
        code: x!.variant ?? 'this commit',
        'imported accounts (= book)': x!.accounts,
        'book MiB': x!.bookMiB,
        'stored digests': x!.digests ?? 'none',
        'bulk load s': x!.bulkLoadSeconds,
        'digest fill s': x!.digestFillSeconds ?? '',
        'reconcile s': x!.seconds,
        'accounts/s': x!.accountsPerSecond,
        matched: x!.classes?.matched,
        'client peak RSS MiB': x!.clientPeakRssMiB,
        'client NODE_OPTIONS': x!.clientNodeOptions ?? '(none)',
        'API CPU ms/account': x!.apiCpuMsPerAccount,
        concurrency: x!.concurrency,
      })),
    ),
  );
  if (r.notes) out.push(`\n${(r.notes as string[]).join('\n\n')}\n`);
  return out;
}
