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
        'imported accounts (= book)': x!.accounts,
        'book MiB': x!.bookMiB,
        'bulk load s': x!.bulkLoadSeconds,
        'reconcile s': x!.seconds,
        'accounts/s': x!.accountsPerSecond,
        'matched': x!.classes?.matched,
        'client peak RSS MiB': x!.clientPeakRssMiB,
        'client NODE_OPTIONS': x!.clientNodeOptions ?? '(none)',
        'API CPU ms/account': x!.apiCpuMsPerAccount,
        concurrency: x!.concurrency,
      })),
    ),
  );
  const rates = runs.map((x) => x!.accountsPerSecond as number);
  const uncapped = runs.filter((x) => !x!.clientNodeOptions);
  const capped = runs.filter((x) => x!.clientNodeOptions);
  out.push(
    `\nEvery run: every account matched (the book is each stored account as bench:scale made it). **Throughput: ${Math.min(...rates)}–${Math.max(...rates)} accounts/s, below the 1,000/s target.** ` +
      'Where it goes: the API process, one Node thread, spends the CPU per account in the table above reading the account back (one query per account table for a batch of 500, a few hundred rows per typical account), reassembling, canonicalising and hashing it; one API process with a core to itself would top out near 400–500 accounts/s, and this machine has two cores for PostgreSQL, the API, the client and whatever else runs (the load average was 8–19 during the 250,000 run). Not measured: several API processes behind one address.\n',
  );
  if (uncapped.length > 0) {
    out.push(
      `\n**Client memory.** Uncapped, the peak RSS grows with the book (${uncapped.map((x) => `${x!.clientPeakRssMiB} MiB at ${x!.accounts.toLocaleString('en')}`).join(', ')}): V8 lets garbage pile up (every account is parsed, canonicalised and hashed), the live set being the batches in flight.` +
        (capped.length > 0 ? ` With the heap capped as the service processes are (${capped[0]!.clientNodeOptions}): ${capped.map((x) => `${x!.clientPeakRssMiB} MiB at ${x!.accounts.toLocaleString('en')}`).join(', ')}, at the same or better throughput.` : '') +
        (capped.some((x) => x!.accounts >= 250_000) ? '' : ' The capped run of 250,000 accounts was not made.') +
        '\n',
    );
  }
  return out;
}
