import { InvalidArgumentError, type Command } from 'commander';
import { CliError } from '../errors';
import { print } from '../context';
import { integerIn, withExamples } from '../format';
import { progressOption, runInterruptible, type ProgressKind } from '../shared/options';
import { Phases, timingsText, type Phase } from '../shared/phases';
import { startProgress } from '../shared/progress';
import { bucketOption, cohortOption, sampleOption, trancheFrom, type TrancheOptions } from '../shared/tranche';
import fs from 'node:fs';
import { mapMainThreadHeap, MappingError, MapRunError, runMap, sizeBytes, skeleton, type MapStats, type MapSummary, type ObjectStats } from '../../mapping';

/** Reading the files into DuckDB, then making the tables distinct and joining them (mapping/store.ts). */
const READING = 'loading the extract';

/**
 * `data-import map`: a legacy system's extract and a mapping to a book (mapping/ does the work;
 * docs/bulk-migration.md, "From a legacy extract"). Exit codes as migrate's: 0 every account mapped
 * and valid; 2 some quarantined (or orphan rows reported); 130 interrupted (no book written: run
 * again); 1 the run could not proceed (a bad mapping, a file that cannot be read: report written).
 */
interface MapCommandOptions extends TrancheOptions {
  mapping: string;
  extracts: string;
  out: string;
  report?: string;
  quarantine?: string;
  validate: boolean;
  referenceData?: string;
  allowUnconfirmed?: boolean;
  threads?: number;
  memoryLimit?: string;
  tempDir?: string;
  progress: ProgressKind;
}

/** A size as DuckDB reads it: a number and a unit (`4GB`, `512MB`, `1.5GiB`; mapping/engine.ts sizeBytes). */
function memorySize(value: string): string {
  if (Number.isNaN(sizeBytes(value))) throw new InvalidArgumentError('a size such as 4GB or 512MB');
  return value.trim();
}

/** Per table: "customers: 6 read, 4 mapped (4 valid, 0 quarantined), 2 left out", with the tranche and orphans when any. */
function objectLine(t: ObjectStats): string {
  const extra = [t.outsideTranche > 0 ? `${t.outsideTranche} outside the tranche` : '', t.orphans > 0 ? `${t.orphans} orphans` : ''].filter(Boolean);
  return `  ${t.table}: ${t.read} read, ${t.mapped} mapped (${t.valid} valid, ${t.quarantined} quarantined)${extra.map((e) => `, ${e}`).join('')}, ${t.leftOut} left out`;
}

function summaryText(s: MapSummary, phases: Phases): string {
  const st = s.stats;
  return [
    'rows per table:',
    ...st.objects.map(objectLine),
    `accounts: ${st.accounts} mapped, ${st.valid} valid, ${st.quarantined} quarantined${st.outsideTranche > 0 ? `, ${st.outsideTranche} outside the tranche` : ''}; orphan rows ${st.orphans}; ${st.seconds.toFixed(1)} s`,
    `phases: ${timingsText(phases.timings())}`,
    s.book ? `book: ${s.book}\nquarantine: ${s.quarantine}` : 'book: none written',
    `report: ${s.report.csv}, ${s.report.json}, ${s.report.html}`,
  ].join('\n');
}

export function register(program: Command): void {
  const cmd = program
    .command('map')
    .description(
      "Turn a legacy system's extract (a folder of CSV/TSV or fixed-width files, one table each) into a book migrate and reconcile take: a YAML mapping mirroring the Account tree gives each field a rule (constant, column, conversion table, expression, parent key) and each list a child table joined on its keys; every account goes through the service's own validator in process; an account with any error is quarantined whole, with each error traced to its source file, line, column, legacy value and mapping rule. Writes the book, the quarantine file and a report (<prefix>.csv, .json, .html) with the run's figures and, per table of the extract, where its rows went (in valid or quarantined accounts, outside the tranche, orphans, left out).",
    )
    .option('--mapping <file>', 'required: the mapping (YAML; see examples/legacy-extract/mapping.yaml)')
    .option('--extracts <folder>', 'required: the extract, the folder the mapping\'s table files are found in')
    .option('--out <file>', 'required: the book to write (NDJSON, one account a line; written whole or not at all)')
    .option('--report <prefix>', 'report files <prefix>.csv, .json and .html (default: <out>.map)')
    .option('--quarantine <file>', 'accounts held back, each with its errors and what was mapped (NDJSON; default: <out>.quarantine.ndjson)')
    .option('--no-validate', "skip the service's validator (the mapping's own errors still quarantine)")
    .option('--reference-data <file>', "the supplier's reference data as JSON rows [{kind, code, fuel?}] (default: the service's defaults)")
    .option('--allow-unconfirmed', 'run although conversion tables are marked unconfirmed (as map init writes them)')
    .option('--threads <n>', 'worker threads building and validating the accounts while the main thread reads the extract and writes the book (0: none; default: none for an extract under 8 MB, else the cores but one, at least 1, at most 4); the book is the same whatever the number', integerIn(0, 64))
    .option('--memory-limit <size>', `memory DuckDB may hold the extract's rows in (as DuckDB reads it: 4GB, 512MB); past it DuckDB writes them to --temp-dir (default: DATA_IMPORT_MAP_MEMORY_LIMIT, else half the machine's memory, at most 4GB)`, memorySize)
    .option('--temp-dir <folder>', "where the run's DuckDB database file (an extract over a quarter of --memory-limit) and spill files go, in a folder of their own removed at the end (default: DATA_IMPORT_MAP_TEMP_DIR, else the system's temp folder)")
    .addOption(progressOption())
    .addOption(cohortOption())
    .addOption(bucketOption())
    .addOption(sampleOption())
    .action(async (o: MapCommandOptions) => {
      // Not commander's required options: `map init` is a subcommand, and those would be asked of it too.
      const missing = (['mapping', 'extracts', 'out'] as const).filter((k) => !o[k]);
      if (missing.length > 0) throw new CliError(`required option(s) ${missing.map((k) => `--${k}`).join(', ')} not specified (run with --help for usage)`, 1);
      mapMainThreadHeap();
      // The phases as migrate shows them: the extract's rows read (no total known before the end),
      // then the accounts mapped of those chosen, each with its rate and ETA; the count of accounts
      // is the run's own as the display asks for it, not only every 200 accounts.
      const phases = new Phases();
      const reading = phases.start(READING, 'rows');
      let mapping: Phase | null = null;
      let live: Readonly<MapStats> | null = null;
      const counts = (): Record<string, number> => (live ? { valid: live.valid, quarantined: live.quarantined, 'outside the tranche': live.outsideTranche } : {});
      const progress = startProgress(
        o.progress,
        {
          total: () => mapping?.total ?? null,
          done: () => mapping?.done ?? 0,
          counts,
          following: () => 0,
          outage: () => null,
          phases: () => {
            if (mapping && live) mapping.done = Math.max(mapping.done, live.accounts + live.outsideTranche);
            return phases.all();
          },
        },
        (line) => process.stderr.write(`${line}\n`),
      );
      let summary: MapSummary;
      try {
        summary = await runInterruptible(
          { input: o.extracts, stopping: 'stopping: no book is written', known: (err): err is Error & { code: string } => false },
          (signal) =>
            runMap({
              mapping: o.mapping,
              extracts: o.extracts,
              out: o.out,
              reportPrefix: o.report,
              quarantine: o.quarantine,
              validate: o.validate,
              referenceData: o.referenceData,
              allowUnconfirmed: o.allowUnconfirmed,
              threads: o.threads,
              memoryLimit: o.memoryLimit,
              tempDir: o.tempDir,
              tranche: trancheFrom(o),
              signal,
              onRowsRead: (rows) => {
                reading.done = rows;
              },
              onProgress: (d, t, stats) => {
                if (!mapping) {
                  phases.end(READING);
                  mapping = phases.start('mapping accounts', 'accounts', t);
                }
                mapping.done = d;
                live = stats;
              },
            }),
        );
      } catch (err) {
        if (err instanceof MappingError || err instanceof MapRunError) throw new CliError(err.message, 1);
        throw err;
      } finally {
        phases.endAll();
        progress.stop();
      }
      print(summaryText(summary, phases));
      if (summary.fatal) throw new CliError(`the extract could not be read: see ${summary.report.csv}`, 1);
      if (summary.interrupted) throw new CliError('interrupted', 130);
      if (summary.stats.quarantined > 0 || summary.stats.orphans > 0) throw new CliError(`not every account mapped and valid: see ${summary.report.html}`, 2);
    });
  cmd.addHelpText(
    'after',
    '\nExit codes: 0 every account mapped and valid (the book holds them all); 2 some accounts quarantined or rows of the extract joined to no account (see the report); 130 interrupted (no book written: run again); 1 the run could not proceed: a bad mapping (each error with its line), a file that cannot be read (missing, empty, wrong encoding, unterminated quote, header not as declared: the report names file and line, no book written).\nTranches: --cohort, --bucket and --sample select on the external account number as migrate and reconcile do (docs/bulk-migration.md, "Tranches"); a re-run on the same extract writes a byte-identical book.\nThe mapping language: docs/bulk-migration.md, "From a legacy extract".',
  );
  withExamples(cmd, [
    'data-import map --mapping examples/legacy-extract/mapping.yaml --extracts examples/legacy-extract/extract --out book.ndjson',
    'data-import map --mapping mapping.yaml --extracts /data/extract-2026-11 --out tranche-3.ndjson --bucket 3/8 --report tranche-3.map',
  ]);
  const init = cmd
    .command('init')
    .description("Write a mapping to start from: every Account field, commented out, with its type, whether it is required, its value set and the validation codes that can be raised at it; given --profile <extract folder>, the tables of the extract's delimited files (encoding, delimiter, columns with the types and date formats seen) and, for each column with few distinct values, a conversion table pre-filled with the codes found, marked unconfirmed (a run refuses it until confirmed, or with --allow-unconfirmed).")
    .argument('<file>', 'the mapping to write (YAML)')
    .option('--profile <folder>', 'an extract to profile (its *.csv, *.tsv and *.txt files)')
    .option('--force', 'overwrite the file when it exists')
    .action((file: string, o: { profile?: string; force?: boolean }) => {
      if (fs.existsSync(file) && !o.force) throw new CliError(`${file} exists: pass --force to overwrite it`, 1);
      fs.writeFileSync(file, skeleton(o.profile));
      print(`mapping skeleton written: ${file}`);
    });
  withExamples(init, ['data-import map init mapping.yaml --profile /data/extract-2026-11']);
}
