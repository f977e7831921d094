import { Command, Option } from 'commander';
import { CliError } from '../errors';
import { bucketOption, cohortOption, sampleOption, trancheFrom, type TrancheOptions } from '../shared/tranche';
import { print } from '../context';
import { integerIn, withExamples } from '../format';
import { AuthError } from '../shared/auth';
import { apiKeyOption, apiUrlOption, outageTimeoutOption, progressOption, runInterruptible, type ApiCommandOptions } from '../shared/options';
import { defaultThreads } from '../reconcile/digest';
import { DEFAULT_CONCURRENCY, DEFAULT_MAX_PATHS, EXTRAS_MODES, formatSummary, MAX_BATCH, ReconcileError, runReconcile, type ExtrasMode } from '../reconcile/run';
import { ReconcileStateError } from '../reconcile/state';

/**
 * `data-import reconcile`: proves over the API that the book arrived intact (cli/reconcile/run.ts
 * does the work; docs/bulk-migration.md, "Sign-off" and "Tranches"). Exit codes: 0 every account
 * of the book matched, its totals equal (with --extras list: and nothing outside it); 2 an account
 * of the book mismatched, missing, not final or failed, a book error, or totals not equal; 3 (only
 * with --extras list) the book matched but the supplier holds accounts outside it; 130 interrupted
 * (run the same command again to resume); 1 the run could not proceed (bad options, input missing,
 * credentials refused, an unexpected answer, the API unavailable past --outage-timeout: the
 * batches done are kept, run the same command again to resume).
 */

interface ReconcileCommandOptions extends ApiCommandOptions, TrancheOptions {
  input: string;
  concurrency: number;
  threads: number;
  batchSize: number;
  state?: string;
  report?: string;
  restart?: boolean;
  maxPaths: number;
  extras: ExtrasMode;
}

export function register(program: Command): void {
  const cmd = program
    .command('reconcile')
    .description(
      'Check a migrated book (a tranche, or the whole book) against the platform over the HTTP API: every account of the book (NDJSON or a folder of JSON files) is matched, mismatched (with the paths that differ, personal values and bank details masked; bank details are compared in clear when the key may reveal them: api-keys permit --reveal-bank-details), missing, not final or failed (with its error code); the accounts the supplier holds outside the book are counted (--extras count, the default: a tranche is signed off alone), listed as extra and a finding (--extras list: the whole supplier is signed off), or not asked (--extras off); totals of the book beside those of its accounts as stored and of the whole supplier. Writes <prefix>.json and <prefix>.csv; resumable.',
    )
    .requiredOption('--input <path>', 'the book: NDJSON file (one account per line) or folder of *.json files, as given to migrate')
    .addOption(apiUrlOption())
    .addOption(apiKeyOption())
    .option('--concurrency <n>', 'bulk digest requests in flight at once', integerIn(1, 64), DEFAULT_CONCURRENCY)
    .option('--threads <n>', 'worker threads parsing and hashing the book (0: none, the main thread does it; default: the cores, at most 4)', integerIn(0, 64), defaultThreads())
    .option('--batch-size <n>', `accounts of one supplier per bulk digest request (at most ${MAX_BATCH})`, integerIn(1, MAX_BATCH), MAX_BATCH)
    .option('--state <file>', 'resumable state: the batches done so far (default: <input>.reconcile-state.ndjson; removed when a run finishes)')
    .option('--report <prefix>', 'report files <prefix>.json and <prefix>.csv (default: <input>.reconcile; a prefix ending .json or .csv stands for the one without it)')
    .option('--restart', 'ignore the state of an earlier, unfinished run and start again')
    .addOption(
      new Option('--extras <mode>', "the supplier's accounts outside the book: count (one totals request per supplier; not a finding: sign off a tranche), list (each listed in the report as extra, a finding, exit 3: sign off the whole supplier), off (not asked)")
        .choices([...EXTRAS_MODES])
        .default('count'),
    )
    .option('--max-paths <n>', 'differing paths reported per mismatched account', integerIn(1, 10_000), DEFAULT_MAX_PATHS)
    .addOption(outageTimeoutOption('longest API outage waited out (probing with backoff) before stopping with the state saved (0: wait for ever)', 30))
    .addOption(progressOption())
    .addOption(cohortOption())
    .addOption(bucketOption())
    .addOption(sampleOption())
    .action(async (o: ReconcileCommandOptions) => {
      const summary = await runInterruptible(
        {
          input: o.input,
          stopping: 'stopping: no new batches are sent; the batches done are kept',
          known: (err): err is ReconcileError | AuthError | ReconcileStateError => err instanceof ReconcileError || err instanceof AuthError || err instanceof ReconcileStateError,
        },
        (signal) =>
          runReconcile({
            input: o.input,
            apiUrl: o.apiUrl,
            apiKey: o.apiKey,
            concurrency: o.concurrency,
            threads: o.threads,
            batchSize: o.batchSize,
            statePath: o.state,
            reportPrefix: o.report,
            restart: o.restart,
            maxPaths: o.maxPaths,
            extras: o.extras,
            outageTimeoutMs: Math.round(o.outageTimeout * 60_000),
            progress: o.progress,
            tranche: trancheFrom(o),
            signal,
          }),
      );
      print(formatSummary(summary));
      if (summary.interrupted) throw new CliError('interrupted', 130);
      if (summary.verdict === 'findings') throw new CliError(`not every account matched: see ${summary.reportCsv}`, 2);
      if (summary.verdict === 'extras') throw new CliError(`every account of the book matched, but the supplier holds ${summary.outside ?? 'some'} accounts outside it (--extras list): see ${summary.reportCsv}`, 3);
    });
  cmd.addHelpText(
    'after',
    '\nExit codes: 0 every account of the book matched and its totals are equal (with --extras list: and the supplier holds nothing outside it); 2 an account of the book mismatched, missing, not final or failed, a book error, or totals not equal (see the report); 3 only with --extras list: the book matched, but the supplier holds accounts outside it (listed in the report as extra); 130 interrupted (run the same command again to resume); 1 the run could not proceed.\nTranches: reconcile each tranche\'s book as it is moved (the default --extras count says how many accounts the supplier holds outside it, without a finding); at the end, the books together with --extras list (docs/bulk-migration.md, "Tranches").\nMemory: the command runs in a node of its own with its heap capped (DATA_IMPORT_RECONCILE_NODE_OPTIONS, default --max-old-space-size=128 --max-semi-space-size=8; empty: uncapped), each thread at 64 MiB.\nClasses and the canonical form: docs/bulk-migration.md, "Sign-off".',
  );
  withExamples(cmd, [
    'DATA_IMPORT_API_KEY=... data-import reconcile --input tranche-3.ndjson --api-url https://import.example.net   # a tranche',
    'cat tranche-*.ndjson > whole.ndjson && data-import reconcile --input whole.ndjson --extras list   # the whole supplier',
    'data-import reconcile --input accounts/ --report night-1.reconcile --concurrency 8',
  ]);
}
