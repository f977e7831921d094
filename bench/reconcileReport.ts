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
  const tranches: Json[] = r.tranches ?? [];
  if (tranches.length > 0) {
    out.push(
      '\n### A tranche against a supplier holding others — `RECONCILE_TRANCHE=1000 RECONCILE_SIZE=101000 npm run bench:reconcile`\n\n' +
        "The book of the first N accounts reconciled while the supplier holds the rest (issue 40): with the default `--extras count` (the others counted by one totals request: exit 0 expected), then with `--extras list` (the others listed, 10,000 a page: exit 3 expected). Target: under 5 s with `--extras count`. Seconds are the client process's, its start included.\n\n",
    );
    const phases = (p: Json[] | undefined) => (p ?? []).map((x) => `${x!.phase} ${(x!.ms / 1000).toFixed(1)} s`).join(' · ');
    out.push(
      table(
        tranches.map((x) => ({
          date: String(x!.date ?? '').slice(0, 16),
          code: x!.variant ?? 'this commit',
          tranche: x!.tranche,
          'supplier accounts': x!.supplierAccounts,
          'count: exit': x!.count?.exitCode,
          'count: s': x!.count?.seconds,
          'count: requests': `${x!.count?.requests?.digests} digests, ${x!.count?.requests?.totals} totals, ${x!.count?.requests?.accounts} accounts`,
          'count: phases': phases(x!.count?.phases),
          'list: exit': x!.list?.exitCode,
          'list: s': x!.list?.seconds,
          'list: listing pages': x!.list?.requests?.listing,
          'list: phases': phases(x!.list?.phases),
        })),
      ),
    );
    if (r.trancheNotes) out.push(`\n${(r.trancheNotes as string[]).join('\n\n')}\n`);
  }
  return out;
}
