/**
 * The RESULTS.md sections of the growth benchmark (bench/scale.ts) and of the outbox bloat
 * benchmark (bench/outboxBloat.ts), with the extrapolation to 1.5 million accounts.
 */
type Json = Record<string, any> | null;
type Table = (rows: Record<string, unknown>[]) => string;

const TARGET_ACCOUNTS = 1_500_000;

export function scaleSections(scale: Json, bloat: Json, table: Table): string[] {
  const out: string[] = [];
  out.push('\n## Growth — `npm run bench:scale`\n');
  if (scale && scale.rows?.length) {
    const rows: any[] = scale.rows;
    out.push(
      `Measured ${scale.date} (${scale.note ?? ''}): sizes ${scale.sizes.join(', ')}; at each, ${scale.e2eCount} accounts through \`data-import migrate\`, ${scale.probes} validate and status probes.` +
        (scale.seedCount ? ` Bulk load: the first ${scale.seedCount} accounts through the store, the rest copied from them inside PostgreSQL.` : '') +
        '\n\n',
    );
    out.push(
      table(
        rows.map((r) => ({
          'imported accounts': r.accounts,
          'bulk load s': r.bulkLoadSeconds,
          'import accounts/s': r.importPerSecond,
          'CPU ms/account (all processes)': r.cpuMsPerAccount,
          'validate p50/p95 ms': `${r.validateP50Ms} / ${r.validateP95Ms}`,
          'status p50/p95 ms': `${r.statusP50Ms} / ${r.statusP95Ms}`,
          'relay lag mean ms (p95 ≤)': `${r.relayLagMeanMs ?? '-'} (${r.relayLagP95UpToMs ?? '-'})`,
          'KB/account before retention (new rows)': r.kbPerAccountBeforeRetention.total ?? '-',
          'KB/account after retention': r.kbPerAccountAfterRetention.total ?? '-',
        })),
      ),
    );
    const last = rows[rows.length - 1];
    out.push('\nBytes per account by table group (KB), before retention (rows added since the previous size) and after retention (whole database):\n\n');
    out.push(
      table(
        rows
          .filter((r) => r.accounts > 0)
          .flatMap((r) =>
            ['before', 'after'].map((when) => ({
              accounts: r.accounts,
              when,
              ...(when === 'before' ? r.kbPerAccountBeforeRetention : r.kbPerAccountAfterRetention),
            })),
          ),
      ),
    );
    const empty = rows.find((r) => r.accounts === Math.min(...rows.map((x) => x.accounts)));
    if (empty && last && last !== empty) {
      const pct = (a: number, b: number) => `${(((a - b) / b) * 100).toFixed(0)} %`;
      const kb = last.kbPerAccountAfterRetention.total;
      out.push('\n### Extrapolation to 1.5 million accounts\n');
      out.push(
        table([
          { figure: 'after retention, per account', value: `${kb} KB (target ≤ 55 KB)` },
          { figure: 'database at 1.5 M accounts (after retention)', value: `${((kb * TARGET_ACCOUNTS) / 1024 / 1024).toFixed(1)} GB` },
          { figure: `import throughput at ${last.accounts} vs ${empty.accounts}`, value: `${pct(last.importPerSecond, empty.importPerSecond)} (target within ±10 %)` },
          { figure: `CPU per account at ${last.accounts} vs ${empty.accounts}`, value: `${pct(last.cpuMsPerAccount, empty.cpuMsPerAccount)} (target within ±10 %)` },
          { figure: `status GET p95 at ${last.accounts} vs ${empty.accounts}`, value: `${last.statusP95Ms} ms vs ${empty.statusP95Ms} ms` },
          { figure: `validate p95 at ${last.accounts} vs ${empty.accounts}`, value: `${last.validateP95Ms} ms vs ${empty.validateP95Ms} ms` },
        ]),
      );
    }
  } else out.push('_not run yet_\n');

  out.push('\n## Recording publication — `npm run bench:outbox-bloat`\n');
  if (bloat) {
    out.push(
      `Measured ${bloat.date}: ${bloat.transactions} import transactions of 12 events by ${bloat.writers} writers while a relay loop records publication; the server's autovacuum was ${bloat.autovacuum}, so the benchmark vacuums the churned table every few seconds itself and times it.\n\n`,
    );
    out.push(
      table(
        bloat.results.flatMap((r: any) =>
          [...r.after.map((x: any) => ({ when: 'after load', ...x })), ...r.afterVacuum.map((x: any) => ({ when: 'after final VACUUM', ...x }))].map((x) => ({
            design: r.design,
            'relay µs/event (median)': r.fetchAndMarkUsPerEventMedian,
            'VACUUM ms during load': r.vacuumDuringLoadMs,
            ...x,
          })),
        ),
      ),
    );
  } else out.push('_not run yet_\n');
  return out;
}
