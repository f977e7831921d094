import { Command, Option } from 'commander';
import { CliError } from '../errors';
import { bucketOption, cohortOption, sampleOption, trancheFrom, type TrancheOptions } from '../shared/tranche';
import { print } from '../context';
import { integerIn, withExamples } from '../format';
import { AuthError } from '../shared/auth';
import { apiKeyOption, apiUrlOption, outageTimeoutOption, progressOption, minutes, runInterruptible, type ApiCommandOptions } from '../shared/options';
import {
  allSucceeded,
  DEFAULT_CONCURRENCY,
  DEFAULT_MAX_RETRIES,
  DEFAULT_OUTAGE_TIMEOUT_MS,
  DEFAULT_POLL_INTERVAL_MS,
  formatSummary,
  MigrationError,
  runMigration,
  type MigrationMode,
} from '../migrate';

/**
 * `data-import migrate`: pushes a book through the HTTP API (cli/migrate/run.ts does the work).
 * Exit codes: 0 every account PROCESSED (or valid / dry run succeeded / staged), 2 finished with failed or
 * unfinished accounts (see the report; includes a stop after --outage-timeout: run the same
 * command again to resume), 130 interrupted (Ctrl-C; run the same command again to resume),
 * 1 the run could not proceed (bad options, input missing, credentials refused).
 */

interface MigrateOptions extends ApiCommandOptions, TrancheOptions {
  input: string;
  concurrency: number;
  maxInFlight?: number;
  validateOnly?: boolean;
  validateFirst?: boolean;
  stage?: boolean;
  processStaged?: boolean;
  state?: string;
  report?: string;
  pollInterval: number;
  timeout?: number;
  dryRunTasks?: boolean;
  retryFailed?: boolean;
  maxRetries: number;
}

export function register(program: Command): void {
  const cmd = program
    .command('migrate')
    .description(
      'Push a book of accounts (NDJSON or a folder of JSON files) through the HTTP API: validate, create (or stage, then process) with bounded concurrency, follow every import to its final status, resume after an interruption, and write a report (<prefix>.json and <prefix>.csv).',
    )
    .requiredOption('--input <path>', 'NDJSON file (one account per line) or folder of *.json files')
    .addOption(apiUrlOption())
    .addOption(apiKeyOption())
    .option('--concurrency <n>', 'requests in flight at once, for creates and for status requests each', integerIn(1, 1024), DEFAULT_CONCURRENCY)
    .option('--max-in-flight <n>', 'imports submitted and not yet final at most at once (back-pressure; default 2 × --concurrency)', integerIn(1, 100000))
    .addOption(new Option('--validate-only', 'only validate every account and report its errors; creates nothing, leaves the state file alone').conflicts('validateFirst'))
    .option('--validate-first', 'validate each account first and create only the valid ones')
    .addOption(
      new Option('--stage', "stage each account instead of creating it (the platform's v1 create-or-update): stored and validated, STAGED, nothing imported; the report lists the errors of those that fail")
        .conflicts(['validateOnly', 'validateFirst', 'processStaged', 'dryRunTasks']),
    )
    .addOption(
      new Option('--process-staged', "process each account of the book staged before (the platform's v1 process: validated again, then imported exactly as a create) and follow it to its final status")
        .conflicts(['validateOnly', 'validateFirst']),
    )
    .option('--state <file>', 'resumable state file (default: <input>.migrate-state.json)')
    .option('--report <prefix>', 'report files <prefix>.json and <prefix>.csv (default: <input>.report; a prefix ending .json or .csv stands for the one without it)')
    .option('--poll-interval <ms>', 'milliseconds between two status polls of one account (up to 500 accounts of a supplier are polled in one bulk status request)', integerIn(50, 3_600_000), DEFAULT_POLL_INTERVAL_MS)
    .option('--timeout <minutes>', 'stop after this many minutes (state saved; unfinished accounts are reported as such)', minutes)
    .addOption(
      outageTimeoutOption(
        'while the API is unreachable or answers 5xx to everything, send nothing, probe with backoff (1 s doubling to 20 s) and resume when it answers; stop after an outage this long (unfinished accounts reported as api_unavailable, state saved; 0: wait for ever)',
        DEFAULT_OUTAGE_TIMEOUT_MS / 60_000,
      ),
    )
    .option('--dry-run-tasks', 'send every create (or process) as a dry-run task: the whole import runs and is rolled back (DRY_RUN_SUCCEEDED / DRY_RUN_ERRORED)')
    .option('--retry-failed', 'also re-send accounts that an earlier run left VALIDATION_FAILED, ERRORED or CANCELLED')
    .option('--max-retries <n>', 'retries of a 5xx (503 timeout included) to one account while the API answers others, before the account is FAILED (an outage does not count)', integerIn(0, 100), DEFAULT_MAX_RETRIES)
    .addOption(progressOption())
    .addOption(cohortOption())
    .addOption(bucketOption())
    .addOption(sampleOption())
    .action(async (o: MigrateOptions) => {
      const mode: MigrationMode = o.validateOnly ? 'validate-only' : o.validateFirst ? 'validate-first' : o.stage ? 'stage' : o.processStaged ? 'process' : 'create';
      const summary = await runInterruptible(
        {
          input: o.input,
          stopping: 'stopping: no new accounts are sent; saving the state',
          known: (err): err is MigrationError | AuthError => err instanceof MigrationError || err instanceof AuthError,
        },
        (signal) =>
          runMigration({
            input: o.input,
            apiUrl: o.apiUrl,
            apiKey: o.apiKey,
            concurrency: o.concurrency,
            maxInFlight: o.maxInFlight,
            mode,
            statePath: o.state,
            reportPrefix: o.report,
            pollIntervalMs: o.pollInterval,
            timeoutMs: o.timeout !== undefined ? o.timeout * 60_000 : undefined,
            outageTimeoutMs: Math.round(o.outageTimeout * 60_000),
            dryRunTasks: o.dryRunTasks,
            retryFailed: o.retryFailed,
            maxRetries: o.maxRetries,
            progress: o.progress,
            tranche: trancheFrom(o),
            signal,
          }),
      );
      print(formatSummary(summary));
      if (summary.interrupted) {
        print('run the same command again to resume');
        throw new CliError('interrupted', 130);
      }
      if (summary.apiUnavailable) throw new CliError(`the API stayed unavailable longer than --outage-timeout: run the same command again to resume (see ${summary.reportCsv})`, 2);
      if (!allSucceeded(summary)) throw new CliError(`not every account succeeded: see ${summary.reportCsv}`, 2);
    });
  withExamples(cmd, [
    'data-import migrate --input book.ndjson --validate-only',
    'DATA_IMPORT_API_KEY=... data-import migrate --input book.ndjson --api-url https://import.example.net --validate-first --concurrency 32',
    'data-import migrate --input accounts/ --state night-1.state.json --report night-1 --timeout 240',
    'data-import migrate --input book.ndjson --stage            # ahead of the cutover: stage the whole book',
    'data-import migrate --input book.ndjson --process-staged   # on the night: import what was staged',
  ]);
}
