import type { Command } from 'commander';
import { runRetention } from '../../maintenance/retention';
import { print, withDb } from '../context';
import { integerIn, json, table, withExamples } from '../format';

interface MaintenanceOptions {
  dryRun?: boolean;
  json?: boolean;
  maxRows?: number;
}

/**
 * `data-import maintenance`: one retention pass now (the worker also runs it on a Temporal
 * schedule, every MAINTENANCE_INTERVAL_MINUTES). docs/operations.md "Retention and storage per account".
 */
export function register(program: Command): void {
  withExamples(
    program
      .command('maintenance')
      .description(
        'Apply retention now: delete outbox events JetStream acknowledged more than RETENTION_OUTBOX_HOURS ago (never an unpublished one), and drop the stored payload of PROCESSED imports unchanged for RETENTION_PAYLOAD_DAYS (the account tables hold the data; ERRORED, DRY_RUN_* and CANCELLED imports keep theirs for the next run; every status record is kept), and delete refresh tokens expired or revoked more than a day ago. Works in batches of RETENTION_BATCH_SIZE; safe while imports run.',
      )
      .option('--dry-run', 'count what would be pruned; change nothing')
      .option('--max-rows <n>', 'prune at most this many rows of each kind (default RETENTION_MAX_ROWS_PER_RUN)', integerIn(1, Number.MAX_SAFE_INTEGER))
      .option('--json', 'print the report as JSON')
      .action(async (o: MaintenanceOptions) => {
        await withDb(async (db, config) => {
          const { scheduleMinutes: _interval, ...settings } = config.retention;
          const report = await runRetention(db, { ...settings, maxRowsPerRun: o.maxRows ?? settings.maxRowsPerRun }, { dryRun: o.dryRun });
          if (o.json) return print(json(report));
          const verb = report.dryRun ? 'would prune' : 'pruned';
          print(
            table(
              ['what', verb, 'still due', 'kept (unpublished)'],
              [
                ['outbox events', report.outbox.pruned, report.outbox.pending, report.outbox.heldUnpublished],
                ['PROCESSED payloads', report.payload.pruned, report.payload.pending, '-'],
                ['refresh tokens (expired or revoked a day ago)', report.refreshTokens.pruned, report.refreshTokens.pending, '-'],
              ],
            ),
          );
          // A batch that failed is passed, and set aside after its last attempt (docs/operations.md "Set-aside queue items").
          if (report.failedBatches.length > 0) print(`batches that failed (passed; set aside after their last attempt: data-import set-aside list --queue retention): ${report.failedBatches.join(', ')}`);
        });
      }),
    ['data-import maintenance --dry-run', 'data-import maintenance --json', 'RETENTION_OUTBOX_HOURS=24 data-import maintenance'],
  );
}
