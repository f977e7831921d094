import type { Command } from 'commander';
import { buildSummary } from '../../ops/summary';
import { supplierCodes } from '../../ops/store';
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

export function registerSummary(group: Command): void {
  withExamples(
    group
      .command('summary')
      .description(
        'Counts by status with the share PROCESSED, the current rate and the time left, the top error codes, registrations, e-mails and the events outbox: the numbers of the operations page.',
      )
      .option('--supplier <code>', 'only this import supplier (default: all)')
      .option('--hours <n>', 'width of the time series in the JSON (1-72)', integerIn(1, 72), 6)
      .option('--json', 'print the JSON of the operations page (GET /api/summary)'),
    ['data-import imports summary', 'data-import imports summary --supplier DEMO_ENERGY', 'data-import imports summary --supplier DEMO_ENERGY --json'],
  ).action(async (opts: { supplier?: string; hours: number; json?: boolean }) => {
    await withDb(async (db, config) => {
      if (opts.supplier && !(await supplierCodes(db)).includes(opts.supplier)) throw new CliError(`no import supplier ${opts.supplier}`);
      const s = await buildSummary(db, {
        supplier: opts.supplier ?? null,
        hours: opts.hours,
        temporal: { uiUrl: config.temporal.uiUrl, namespace: config.temporal.namespace },
      });
      if (opts.json) return print(json(s));
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
        ].join('\n'),
      );
    });
  });
}
