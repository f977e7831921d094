/**
 * The fault suite's invariants checked against a running stack (docs/fault-suite.md), for a book
 * migrated by hand: `npx tsx test/faults/check.ts --report book.report.json` with the service's own
 * environment (DATABASE_URL, NATS_URL, TEMPORAL_ADDRESS, EVENTS_STREAM, EVENTS_SUBJECT_PREFIX).
 * It waits until every import of the report is final, every event published and every execution
 * closed, then prints the problems found (none: exit 0).
 */
import fs from 'node:fs';
import { Command } from 'commander';
import { Client, Connection } from '@temporalio/client';
import { loadConfig } from '../../lib/config';
import { createDb } from '../../db/knex';
import { connectNats } from '../../events/nats';
import { checkBook, waitForClosed, waitForQuiet } from './invariants';

async function main(): Promise<number> {
  const o = new Command('check')
    .description('Check a migrated book: every account PROCESSED with post-import done, one account row, one complete and one post_import.completed event each (outbox and stream), ImportStatus equal to the row.')
    .requiredOption('--report <file>', 'the JSON report of data-import migrate (<prefix>.json)')
    .option('--supplier <code>', 'import supplier of the book', 'DEMO_ENERGY')
    .option('--wait <seconds>', 'how long to wait for the book to settle', '600')
    .parse()
    .opts<{ report: string; supplier: string; wait: string }>();
  const config = loadConfig();
  const report = JSON.parse(fs.readFileSync(o.report, 'utf8')) as { accounts: { external_account_number: string; final_status: string }[] };
  const exts = report.accounts.map((a) => a.external_account_number);
  const db = createDb(config.database.url, 4);
  const nc = await connectNats(config.nats, 'faults-check');
  const connection = await Connection.connect({ address: config.temporal.address });
  try {
    const temporal = new Client({ connection, namespace: config.temporal.namespace });
    await waitForQuiet(db, o.supplier, exts, Number(o.wait) * 1000);
    await waitForClosed(db, temporal, o.supplier, exts, Number(o.wait) * 1000);
    const r = await checkBook({
      db,
      temporal,
      nc,
      stream: config.nats.stream,
      subjectPrefix: config.nats.subjectPrefix,
      supplier: o.supplier,
      exts,
      clientStatus: new Map(report.accounts.map((a) => [a.external_account_number, a.final_status])),
    });
    process.stdout.write(`${r.accounts} accounts checked, ${r.problems.length} problem(s)\n`);
    for (const p of r.problems) process.stdout.write(`  ${p}\n`);
    return r.problems.length === 0 ? 0 : 1;
  } finally {
    await nc.close();
    await connection.close();
    await db.destroy();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`check failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  },
);
