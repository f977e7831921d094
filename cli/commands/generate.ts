import { Command, InvalidArgumentError, Option } from 'commander';
import { isIsoDate } from '../../account/dates';
import { CliError } from '../errors';
import { print } from '../context';
import { integerIn, withExamples } from '../format';
import { DEFAULT_PREFIX, DEFAULT_SUPPLIER, DEFAULT_VIOLATION_CODES, generateBook, PROFILES, VIOLATIONS, writeBook, type Profile } from '../generate';
import { writeLegacyExtract } from '../../mapping';

/** `data-import generate`: a seeded book of realistic accounts for rehearsing a migration. */

interface GenerateOptions {
  count: number;
  seed: string;
  supplier: string;
  prefix: string;
  start: number;
  today?: string;
  profile: Profile;
  invalidShare: number;
  violations?: string;
  out?: string;
  outDir?: string;
  legacyExtract?: string;
}

function share(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError('expected a number from 0 to 1.');
  return n;
}

function isoDate(value: string): string {
  if (!isIsoDate(value)) throw new InvalidArgumentError('expected a date YYYY-MM-DD.');
  return value;
}

export function register(program: Command): void {
  const cmd = program
    .command('generate')
    .description(
      'Write a seeded book of realistic accounts (valid against every rule by default) as NDJSON or a folder of JSON files; optionally inject one rule violation into a share of them and record the expected error of each in <out>.expected.json.',
    )
    .option('--count <n>', 'number of accounts', integerIn(1, 100_000_000), 100)
    .option('--seed <seed>', 'seed of the generator: the same seed and options give the same book', '1')
    .option('--supplier <code>', 'import_supplier of every account', DEFAULT_SUPPLIER)
    .option('--prefix <prefix>', 'external account numbers are <prefix><n>, n zero-padded to 6 digits', DEFAULT_PREFIX)
    .option('--start <n>', 'first n of the external account numbers', integerIn(0, 999_999_999), 1)
    .option('--today <date>', 'the day the book is generated for (YYYY-MM-DD): nothing but next bill dates (and, on full accounts, promises, plans and other forward-looking dates) lies after it (default: today in Europe/London)', isoDate)
    .addOption(
      new Option(
        '--profile <profile>',
        'account sizes: typical (like the example), large (2 customers, 4 meter points, 36 months, 500+ transactions), full (every field of the platform\'s Account, typical in volume), mixed (15 % large, 10 % full)',
      )
        .choices(PROFILES)
        .default('typical'),
    )
    .option('--invalid-share <share>', 'share of accounts (0..1) that get one rule violation each', share, 0)
    .option(
      '--violations <codes>',
      `comma-separated violation codes, used in turn (default: ${DEFAULT_VIOLATION_CODES.join(',')}; known: ${[...VIOLATIONS.keys()].join(',')})`,
    )
    .option('--out <file>', 'write NDJSON (one account per line) to this file')
    .option('--out-dir <folder>', 'write one <external_account_number>.json file per account into this folder')
    .option('--legacy-extract <folder>', 'also write the book as a legacy extract into this folder: one CSV per list of the Account (transactions included), values as JSON text; examples/roundtrip/mapping.yaml maps it back with data-import map (docs/bulk-migration.md, "The round trip")')
    .action(async (o: GenerateOptions) => {
      if ((o.out === undefined) === (o.outDir === undefined)) throw new CliError('give exactly one of --out <file> and --out-dir <folder>');
      const violations = o.violations?.split(',').map((c) => c.trim()).filter((c) => c !== '');
      const unknown = (violations ?? []).filter((c) => !VIOLATIONS.has(c));
      if (unknown.length > 0) throw new CliError(`unknown violation code(s) ${unknown.join(', ')}; known: ${[...VIOLATIONS.keys()].join(', ')}`);
      const s = await writeBook({
        seed: o.seed,
        count: o.count,
        supplier: o.supplier,
        prefix: o.prefix,
        start: o.start,
        today: o.today,
        profile: o.profile,
        invalidShare: o.invalidShare,
        violations,
        out: o.out,
        outDir: o.outDir,
      });
      if (o.legacyExtract) {
        // The same options give the same accounts: the extract is the book just written.
        const book = generateBook({ seed: o.seed, count: o.count, supplier: o.supplier, prefix: o.prefix, start: o.start, today: o.today, profile: o.profile, invalidShare: o.invalidShare, violations });
        const n = writeLegacyExtract(book as Iterable<unknown> as Iterable<Record<string, unknown>>, o.legacyExtract);
        print(`legacy extract of ${n} accounts written into ${o.legacyExtract} (map it back with examples/roundtrip/mapping.yaml)`);
      }
      const perSecond = s.durationMs > 0 ? Math.round((s.count * 1000) / s.durationMs) : s.count;
      print(`generated ${s.count} accounts (${o.profile}, seed ${o.seed}) into ${s.output}: ${(s.bytes / 1e6).toFixed(1)} MB in ${(s.durationMs / 1000).toFixed(1)} s (${perSecond}/s)`);
      if (s.expectedFile) {
        const byCode = Object.entries(s.violations).map(([code, n]) => `${code} ${n}`).join(', ');
        print(`${s.invalid} invalid (${byCode}); expected errors in ${s.expectedFile}`);
      } else {
        print('all accounts valid');
      }
    });
  withExamples(cmd, [
    'data-import generate --count 10000 --seed night-1 --out book.ndjson',
    'data-import generate --count 60 --profile mixed --invalid-share 0.1 --out rehearsal.ndjson',
    'data-import generate --count 20 --profile large --out-dir accounts/ --violations unknown_field,invalid_postcode --invalid-share 0.5',
    'data-import generate --count 100 --profile full --seed platform-1 --out full.ndjson',
  ]);
}
