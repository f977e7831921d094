import type { Command } from 'commander';
import { buildSummary, buildTranche } from '../../ops/summary';
import type { Tranche } from '../../ops/schema';
import { readInputTexts, toRecord } from '../shared/input';
import { supplierCodes } from '../../suppliers/store';
import { CliError } from '../errors';
import { print, withDb } from '../context';
import { details, integerIn, json, table, withExamples } from '../format';

/**
 * `data-import imports summary`: the numbers of the operations page (ops/), for a terminal or a
 * script. `--json` prints exactly what the page's `GET /api/summary` answers.
 */

const pct = (x: number) => `${(Math.floor(x * 1000) / 10).toFixed(1)} %`;

function duration(seconds: number | null): string {
  if (seconds === null) return 'unknown (nothing PROCESSED recently)';
  if (seconds < 60) return `${Math.round(seconds)} s`;
  const m = Math.round(seconds / 60);
  return m < 60 ? `${m} min` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

const countRows = (o: Record<string, number>) => Object.entries(o).sort(([a], [b]) => a.localeCompare(b));

/** The account numbers of a book (NDJSON or a folder of JSON files, as migrate reads it), per supplier. */
async function bookNumbers(input: string): Promise<Map<string, string[]>> {
  const numbers = new Map<string, string[]>();
  for await (const { text, where } of readInputTexts(input)) {
    const r = toRecord(text, where);
    if (r.kind !== 'account') continue;
    let list = numbers.get(r.supplier);
    if (!list) numbers.set(r.supplier, (list = []));
    list.push(r.external);
  }
  return numbers;
}

function trancheLines(book: string, t: Tranche): string {
  return [
    details([
      ['tranche (book)', book],
      ['import supplier', t.import_supplier],
      ['accounts', t.accounts],
      ['PROCESSED', `${t.by_status.PROCESSED ?? 0} (${pct(t.processed_share)})`],
      ['not started', t.not_started],
      ['remaining', `${t.remaining} not started, PENDING or IN_PROGRESS`],
    ]),
    '',
    table(['TRANCHE STATUS', 'ACCOUNTS'], [...countRows(t.by_status), ['(not started)', t.not_started]]),
  ].join('\n');
}

export function registerSummary(group: Command): void {
  withExamples(
    group
      .command('summary')
      .description(
        'Counts by status with the share PROCESSED, the current rate and the time left, the top error codes, registrations, e-mails and the events outbox: the numbers of the operations page; with --book, the progress of that tranche beside them.',
      )
      .option('--supplier <code>', 'only this import supplier (default: all)')
      .option('--hours <n>', 'width of the time series in the JSON (1-72)', integerIn(1, 72), 6)
      .option('--book <path>', "also the progress of one tranche: the accounts of this book (NDJSON or a folder, as given to migrate) by import status, beside the supplier's totals (default --supplier: the book's)")
      .option('--json', 'print the JSON of the operations page (GET /api/summary; with --book, plus `tranches`: POST /api/tranche of each supplier of the book)'),
    ['data-import imports summary', 'data-import imports summary --supplier DEMO_ENERGY', 'data-import imports summary --book tranche-2.ndjson', 'data-import imports summary --supplier DEMO_ENERGY --json'],
  ).action(async (opts: { supplier?: string; hours: number; book?: string; json?: boolean }) => {
    await withDb(async (db, config) => {
      if (opts.supplier && !(await supplierCodes(db)).includes(opts.supplier)) throw new CliError(`no import supplier ${opts.supplier}`);
      let tranches: Tranche[] = [];
      let supplier = opts.supplier ?? null;
      if (opts.book) {
        let numbers: Map<string, string[]>;
        try {
          numbers = await bookNumbers(opts.book);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new CliError(`book not found: ${opts.book}`);
          throw err;
        }
        if (numbers.size === 0) throw new CliError(`no account in the book ${opts.book}`);
        tranches = await Promise.all([...numbers].sort(([a], [b]) => a.localeCompare(b)).map(([sup, list]) => buildTranche(db, sup, list)));
        if (supplier === null && numbers.size === 1 && (await supplierCodes(db)).includes([...numbers.keys()][0]!)) supplier = [...numbers.keys()][0]!;
      }
      const s = await buildSummary(db, {
        supplier,
        hours: opts.hours,
        temporal: { uiUrl: config.temporal.uiUrl, namespace: config.temporal.namespace },
      });
      if (opts.json) return print(json(opts.book ? { ...s, tranches } : s));
      const by = s.imports.by_status;
      print(
        [
          details([
            ['import supplier', s.import_supplier ?? 'all'],
            ['imports', s.imports.total],
            ['PROCESSED', `${by.PROCESSED} (${pct(s.imports.processed_share)})`],
            ['rate', `${s.rate.processed_per_minute} per minute (last ${s.rate.window_minutes} min)`],
            ['remaining', `${s.rate.remaining} PENDING or IN_PROGRESS`],
            ['time left', s.rate.remaining === 0 ? 'none' : duration(s.rate.eta_seconds)],
            ['outbox backlog', `${s.outbox.backlog} unpublished, oldest ${s.outbox.oldest_age_seconds} s`],
          ]),
          '',
          table(['STATUS', 'IMPORTS'], Object.entries(by)),
          '',
          table(['ERROR CODE', 'IMPORTS'], s.errors.map((e) => [e.code, e.count]), '(no errored imports)'),
          '',
          table(['REGISTRATIONS', 'METER POINTS'], countRows(s.registrations), '(no registrations)'),
          '',
          table(['E-MAILS', 'COUNT'], countRows(s.emails), '(no customer e-mails)'),
          ...tranches.flatMap((t) => ['', trancheLines(opts.book!, t)]),
        ].join('\n'),
      );
    });
  });
}
