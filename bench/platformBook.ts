/**
 * bench/platformBook (issue 35, "Done when"): a platform-shaped book — PLATFORM_BOOK_COUNT accounts
 * (default 1,000) of the `mixed` profile, whose full accounts carry every field of the platform's
 * Account (`data-import generate --profile full`) — migrated with `data-import migrate` against
 * the service running as separate processes, then `data-import reconcile` of the same book: every
 * account must be PROCESSED and every one matched, or the run fails. Prints the counts, the
 * reconciliation's classes, accounts per second and CPU milliseconds per account by process.
 *
 *   npm run build && npx tsx bench/platformBook.ts        (PLATFORM_BOOK_COUNT=200 for a shorter run)
 *
 * Figures: bench/NOTES.md "platform-shaped book".
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeBook } from '../cli/generate';
import { runMigration } from '../cli/migrate';
import { runReconcile } from '../cli/reconcile/run';
import { londonToday } from '../account/dates';
import { startBenchStack, writeResult } from './lib/stack';

const COUNT = Number(process.env.PLATFORM_BOOK_COUNT ?? 1000);
const PROFILE = (process.env.PLATFORM_BOOK_PROFILE ?? 'mixed') as 'mixed' | 'full';

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'di-platform-book-'));
  const input = path.join(dir, 'book.ndjson');
  await writeBook({ out: input, count: COUNT, seed: 'platform-book', profile: PROFILE, today: londonToday(new Date()) });
  const fullAccounts = fs.readFileSync(input, 'utf8').split('\n').filter((l) => l.includes('"configuration_periods"')).length;
  const stack = await startBenchStack();
  try {
    const cpu0 = stack.cpu();
    const migrated = await runMigration({ input, apiUrl: stack.apiUrl, apiKey: stack.apiKey, concurrency: 16, pollIntervalMs: 500, progress: 'none' });
    const cpu1 = stack.cpu();
    const reconciled = await runReconcile({ input, apiUrl: stack.apiUrl, apiKey: stack.apiKey, progress: 'none' });
    const result = {
      accounts: COUNT,
      profile: PROFILE,
      fullAccounts,
      counts: migrated.counts,
      accountsPerSecond: +migrated.accountsPerSecond.toFixed(1),
      cpuMsPerAccount: Object.fromEntries(Object.keys(cpu1).map((k) => [k, Math.round(((cpu1[k]! - cpu0[k]!) * 1000) / COUNT)])),
      reconcile: { classes: reconciled.classes, allMatched: reconciled.allMatched },
    };
    console.log(JSON.stringify(result, null, 2));
    console.log(`written ${writeResult('platform-book', result)}`);
    if ((migrated.counts.PROCESSED ?? 0) !== COUNT || !reconciled.allMatched) throw new Error('not every account was imported and matched');
  } finally {
    await stack.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
