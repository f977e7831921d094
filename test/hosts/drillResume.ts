/**
 * The restore drill's step after a restore onto a new Temporal (test/hosts/run.ts pg-restore-drill;
 * docs/operations.md, "Backups and restore"): the imports the restored database holds open — PENDING,
 * IN_PROGRESS, or PROCESSED with their post-import follow-ups not finished — had their workflows on
 * the Temporal of the lost deployment. Each is started again on the new one, for the same run:
 * every step continues from what the database holds (startImport lets an IN_PROGRESS run of the
 * same number go on; a committed account is found by the create step; a PROCESSED import goes
 * straight to its follow-ups). Run inside the scratch host's namespace with the service's
 * environment (DATABASE_URL, TEMPORAL_ADDRESS, TEMPORAL_TASK_QUEUE); prints one JSON line.
 */
import { Client, Connection } from '@temporalio/client';
import { createDb } from '../../db/knex';
import { findProcess } from '../../imports/store';
import { startImportWorkflow } from '../../imports/startWorkflow';

async function main(): Promise<void> {
  const db = createDb(process.env.DATABASE_URL!, 2);
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const client = new Client({ connection });
  try {
    const rows: { import_supplier: string; external_account_number: string; status: string; current_step: string | null }[] = await db('import_processes')
      .select('import_supplier', 'external_account_number', 'status', 'current_step')
      .where((q) => q.whereIn('status', ['PENDING', 'IN_PROGRESS']).orWhere((q2) => q2.where({ status: 'PROCESSED' }).whereNotIn('current_step', ['done', 'post_import_failed'])));
    const started: string[] = [];
    for (const r of rows) {
      const p = await findProcess(db, r.import_supplier, r.external_account_number);
      if (!p) continue;
      const runId = await startImportWorkflow(client, process.env.TEMPORAL_TASK_QUEUE ?? 'data-import', p);
      await db('import_processes').where({ id: p.id, run: p.run }).update({ workflow_run_id: runId });
      started.push(`${r.external_account_number} (${r.status}${r.current_step ? ` ${r.current_step}` : ''})`);
    }
    process.stdout.write(`${JSON.stringify({ started })}\n`);
  } finally {
    await connection.close().catch(() => undefined);
    await db.destroy();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
