import fs from 'node:fs';
import { once } from 'node:events';
import { csvCell } from '../migrate/report';
import { CLASSES, type AccountClass } from './compare';
import type { AccountResult } from './state';
import { TOTAL_KEYS, totalEqual, type Totals } from './totals';

/**
 * The report of a reconciliation, like migrate's: `<prefix>.json` (the summary, then one entry per
 * account) and `<prefix>.csv` (one row per account; a mismatched one has one row per differing
 * path), both streamed from the state file (no result is held in memory), plus the one-screen
 * summary for the terminal.
 */

export interface ReconcileSummary {
  input: string;
  apiUrl: string;
  /** Accounts of the book in each class, and the extra accounts (imported, not in the book). */
  classes: Record<AccountClass | 'extra', number>;
  /** Records of the book that are not an account (not JSON, no key) or repeat one already read. */
  bookErrors: number;
  /** The import error codes of the failed accounts, with how many each. */
  failedCodes: Record<string, number>;
  /** The first few accounts not matched (class, and the paths or the error code): the report has them all. */
  findings: { import_supplier: string; external_account_number: string; class: string; detail: string }[];
  totals: { source: Totals; platform: Totals };
  /** True when every book account matched and there is no extra account and no book error. */
  allMatched: boolean;
  durationMs: number;
  /** Accounts of the book reconciled in this run (not those of an earlier run's state), per second. */
  accountsPerSecond: number;
  /** Batches (≤ 500 accounts of one supplier) done in this run, and taken from an earlier run's state. */
  batches: { done: number; resumed: number };
  requests: { digests: number; accounts: number; listing: number };
  interrupted: boolean;
  /** The suppliers whose listing of imported accounts could not be read (extra accounts not known). */
  listingUnavailable: string[];
  statePath: string | null;
  reportJson: string;
  reportCsv: string;
}

export const CSV_COLUMNS = ['external_account_number', 'import_supplier', 'class', 'status', 'kraken_identifier', 'error_code', 'path', 'source_value', 'platform_value'] as const;

function cellOf(v: unknown): string {
  if (v === null || v === undefined) return '';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function* csvRows(r: AccountResult): Generator<string> {
  const base = [r.external_account_number, r.import_supplier, r.class, r.status ?? '', r.kraken_identifier ?? '', r.error_code ?? ''];
  const paths = r.paths ?? [];
  if (paths.length === 0) {
    yield `${[...base, '', '', ''].map(csvCell).join(',')}\n`;
    return;
  }
  for (const p of paths) yield `${[...base, p.path, cellOf(p.source), cellOf(p.platform)].map(csvCell).join(',')}\n`;
}

async function writeStream(file: string, lines: AsyncIterable<string>): Promise<void> {
  const stream = fs.createWriteStream(file);
  const failed = once(stream, 'error').then(([err]) => Promise.reject(err));
  failed.catch(() => undefined);
  for await (const line of lines) {
    if (!stream.write(line)) await Promise.race([once(stream, 'drain'), failed]);
  }
  stream.end();
  await Promise.race([once(stream, 'finish'), failed]);
}

export async function writeReport(summary: ReconcileSummary, results: () => AsyncIterable<AccountResult>): Promise<void> {
  await writeStream(
    summary.reportJson,
    (async function* () {
      yield `{"summary":${JSON.stringify(summary)},\n"accounts":[`;
      let first = true;
      for await (const r of results()) {
        yield `${first ? '\n' : ',\n'}${JSON.stringify(r)}`;
        first = false;
      }
      yield '\n]}\n';
    })(),
  );
  await writeStream(
    summary.reportCsv,
    (async function* () {
      yield `${CSV_COLUMNS.join(',')}\n`;
      for await (const r of results()) yield* csvRows(r);
    })(),
  );
}

function seconds(ms: number): string {
  return ms < 60_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

const CLASS_NOTES: Record<AccountClass | 'extra', string> = {
  matched: 'stored exactly as the book has it',
  mismatched: 'stored, with other values: see the paths in the report',
  missing: 'never imported (no import process, or a dry run only)',
  not_final: 'import still PENDING or IN_PROGRESS',
  failed: 'import ended without an account',
  extra: 'imported for the supplier, not in the book',
};

/** The summary an operator reads at the end of a run: one screen. */
export function formatSummary(s: ReconcileSummary): string {
  const bookAccounts = CLASSES.reduce((n, c) => n + s.classes[c], 0);
  const head = s.interrupted ? 'reconciliation interrupted (run the same command again to resume)' : 'reconciliation finished';
  const verdict = s.allMatched ? 'EVERY ACCOUNT MATCHED' : 'NOT EVERY ACCOUNT MATCHED';
  const lines = [
    `${head}: ${bookAccounts} accounts of the book in ${seconds(s.durationMs)}, ${s.accountsPerSecond} accounts/s — ${verdict}`,
  ];
  for (const c of [...CLASSES, 'extra'] as const) {
    let note = CLASS_NOTES[c];
    if (c === 'failed' && s.classes.failed > 0) {
      const codes = Object.entries(s.failedCodes).sort(([, a], [, b]) => b - a);
      note = codes.slice(0, 4).map(([code, n]) => `${code} ${n}`).join(', ') + (codes.length > 4 ? ', …' : '');
    }
    lines.push(`  ${c.padEnd(11)} ${String(s.classes[c]).padStart(9)}  ${note}`);
  }
  if (s.bookErrors > 0) lines.push(`  ${'book errors'.padEnd(11)} ${String(s.bookErrors).padStart(9)}  records that are not an account, or repeat one`);
  if (s.listingUnavailable.length > 0) lines.push(`  extra accounts not known for: ${s.listingUnavailable.join(', ')} (listing unavailable)`);
  if (s.findings.length > 0) {
    lines.push('  first findings:');
    for (const f of s.findings) lines.push(`    ${f.class.padEnd(10)} ${f.import_supplier}/${f.external_account_number}${f.detail ? `: ${f.detail}` : ''}`);
  }
  lines.push(`  ${'totals'.padEnd(16)} ${'source'.padStart(16)} ${'platform'.padStart(16)}`);
  for (const k of TOTAL_KEYS) {
    const mark = totalEqual(k, s.totals.source, s.totals.platform) ? '' : '  ≠';
    lines.push(`  ${k.padEnd(16)} ${String(s.totals.source[k]).padStart(16)} ${String(s.totals.platform[k]).padStart(16)}${mark}`);
  }
  lines.push(
    `  batches: ${s.batches.done} this run, ${s.batches.resumed} from an earlier run; requests: ${s.requests.digests} digests, ${s.requests.accounts} accounts, ${s.requests.listing} listing pages`,
    `  report: ${s.reportJson}, ${s.reportCsv}${s.statePath ? `; state: ${s.statePath}` : ''}`,
  );
  return lines.join('\n');
}
