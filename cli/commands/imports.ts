import { Command, Option } from 'commander';
import { WorkflowNotFoundError } from '@temporalio/client';
import {
  findProcess,
  IMPORT_STATUSES,
  isActive,
  ImportProcess,
  ImportStatus,
} from '../../imports/store';
import { listImportProcesses } from '../../imports/listing/store';
import { CliError } from '../errors';
import { print, withDb, withTemporal } from '../context';
import { integerIn, json, table, withExamples } from '../format';
import { registerSummary } from './importsSummary';
import { registerResumeRestored } from './importsResume';

/**
 * `data-import imports`: the import processes as PostgreSQL records them (the projection the
 * status endpoint reads), and cancelling one through Temporal.
 */

/** The JSON form of an import process: the API record plus what an operator needs to find it. */
export function importJson(p: ImportProcess) {
  return {
    id: p.id,
    import_supplier: p.importSupplier,
    external_account_number: p.externalAccountNumber,
    status: p.status,
    kraken_identifier: p.status === 'PROCESSED' ? p.krakenIdentifier : null,
    run: p.run,
    is_dry_run: p.isDryRun,
    schedule_window_start: p.scheduleWindowStart.toISOString(),
    schedule_window_end: p.scheduleWindowEnd.toISOString(),
    workflow_id: p.workflowId,
    current_step: p.currentStep,
    latest_error: p.latestError,
    created_at: p.createdAt,
    modified_at: p.modifiedAt,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface CancelOptions {
  wait: number;
  json?: boolean;
}

async function cancelImport(supplier: string, external: string, opts: CancelOptions): Promise<void> {
  const name = `${supplier}/${external}`;
  await withDb(async (db) => {
    const p = await findProcess(db, supplier, external);
    if (!p) throw new CliError(`no import of account ${external} for import supplier ${supplier}`);
    if (!isActive(p.status)) throw new CliError(`import ${name} is already ${p.status}: nothing to cancel`);

    await withTemporal(async (client) => {
      try {
        await client.workflow.getHandle(p.workflowId).cancel();
      } catch (err) {
        // The workflow closed between our read and the cancel: its outcome is about to reach
        // the database, so fall through and report whatever it becomes.
        if (!(err instanceof WorkflowNotFoundError)) throw err;
      }
    });

    // The workflow records the outcome in PostgreSQL; the database is the one source of status.
    const deadline = Date.now() + opts.wait * 1000;
    let now = p;
    while (isActive(now.status) && Date.now() < deadline) {
      await sleep(200);
      now = (await findProcess(db, supplier, external)) ?? now;
    }
    if (opts.json) print(json(importJson(now)));
    switch (now.status) {
      case 'CANCELLED':
        if (!opts.json) print(`Import ${name}: CANCELLED.`);
        return;
      case 'PROCESSED':
        if (!opts.json) print(`Import ${name}: PROCESSED (account ${now.krakenIdentifier}).`);
        throw new CliError(`import ${name} stays PROCESSED: the cancel came after the account was committed`);
      default:
        if (isActive(now.status)) {
          throw new CliError(`cancel requested, but import ${name} is still ${now.status} after ${opts.wait} s; check again with \`data-import imports list --supplier ${supplier}\``);
        }
        if (!opts.json) print(`Import ${name}: ${now.status}.`);
        throw new CliError(`import ${name} ended ${now.status} before the cancel took effect`);
    }
  });
}

export function register(program: Command): void {
  const group = program.command('imports').description('List import processes, cancel scheduled or running imports, and start again those a restored database holds open.');
  withExamples(group, ['data-import imports list --status PENDING', 'data-import imports cancel DEMO_ENERGY A-1001']);

  withExamples(
    group
      .command('list')
      .description('List import processes from PostgreSQL, oldest first, optionally filtered by supplier and status.')
      .option('--supplier <code>', 'only imports of this import supplier')
      .addOption(new Option('--status <STATUS>', 'only imports in this status').choices(IMPORT_STATUSES))
      .option('--limit <n>', 'at most this many imports (1-10000)', integerIn(1, 10_000), 100)
      .option('--after <id>', 'only imports with an id greater than this one (for paging through long lists)', integerIn(0, Number.MAX_SAFE_INTEGER))
      .option('--json', 'print a JSON array instead of a table'),
    [
      'data-import imports list',
      'data-import imports list --supplier DEMO_ENERGY --status ERRORED --limit 20',
      'data-import imports list --status PENDING --json',
    ],
  ).action(async (opts: { supplier?: string; status?: ImportStatus; limit: number; after?: number; json?: boolean }) => {
    await withDb(async (db) => {
      // The same query as the HTTP listings (imports/listing/store.ts).
      const rows = await listImportProcesses(db, {
        importSupplier: opts.supplier,
        status: opts.status,
        limit: opts.limit,
        afterId: opts.after === undefined ? undefined : String(opts.after),
      });
      if (opts.json) return print(json(rows.map(importJson)));
      print(
        table(
          ['ID', 'SUPPLIER', 'EXTERNAL ACCOUNT', 'STATUS', 'RUN', 'ACCOUNT', 'STEP', 'ERROR', 'MODIFIED'],
          rows.map((p) => [
            p.id,
            p.importSupplier,
            p.externalAccountNumber,
            p.isDryRun ? `${p.status} (dry run)` : p.status,
            p.run,
            p.status === 'PROCESSED' ? p.krakenIdentifier : null,
            p.currentStep,
            p.latestError?.code,
            p.modifiedAt.replace(/\.\d+\+00:00$/, 'Z'),
          ]),
          '(no imports)',
        ),
      );
    });
  });

  withExamples(
    group
      .command('cancel')
      .description(
        'Cancel a PENDING or IN_PROGRESS import through Temporal, wait for it to stop and print its final status. ' +
          'Exit 0 when it ends CANCELLED; exit 1 when it was already finished, when the cancel came after the account was committed (it stays PROCESSED), or when it is still running after --wait.',
      )
      .argument('<supplier>', 'import supplier code')
      .argument('<external-account-number>', 'external account number of the account')
      .option('--wait <seconds>', 'how long to wait for the import to stop (0-600)', integerIn(0, 600), 10)
      .option('--json', 'print the final import record as JSON'),
    ['data-import imports cancel DEMO_ENERGY A-1001', 'data-import imports cancel DEMO_ENERGY A-1001 --wait 30 --json'],
  ).action(async (supplier: string, external: string, opts: CancelOptions) => {
    await cancelImport(supplier, external, opts);
  });

  registerSummary(group);
  registerResumeRestored(group);
}
