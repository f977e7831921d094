import fs from 'node:fs';
import { once } from 'node:events';
import { csvCell } from '../shared/report';
import { CLASSES, type AccountClass } from './compare';
import type { AccountResult } from './state';
import { TOTAL_KEYS, totalEqual, type Totals } from './totals';
import { timingsText, type PhaseTiming } from '../shared/phases';

/**
 * The report of a reconciliation, like migrate's: `<prefix>.json` (the summary, then one entry per
 * account) and `<prefix>.csv` (one row per account; a mismatched one has one row per differing
 * path), both streamed from the state file (no result is held in memory), plus the one-screen
 * summary for the terminal.
 */

export interface ReconcileSummary {
  input: string;
  apiUrl: string;
  /**
   * Accounts of the book in each class, and the extra accounts (imported for a supplier of the
   * book, not in it): listed with --extras list, counted with --extras count, 0 with --extras off.
   */
  classes: Record<AccountClass | 'extra', number>;
  /** Records of the book that are not an account (not JSON, no key) or repeat one already read. */
  bookErrors: number;
  /** The import error codes of the failed accounts, with how many each. */
  failedCodes: Record<string, number>;
  /** The first few accounts not matched (class, and the paths or the error code): the report has them all. */
  findings: { import_supplier: string; external_account_number: string; class: string; detail: string }[];
  /**
   * The book's totals; those of its accounts as stored (matched ones by their equal digest,
   * mismatched ones read back); those of every account imported for its suppliers (the totals
   * operation; null with --extras off or when the API has no such operation).
   */
  totals: { source: Totals; platform: Totals; supplier: Totals | null };
  /** What was asked about the suppliers' accounts outside the book. */
  extrasMode: 'off' | 'count' | 'list';
  /** Accounts of the book's suppliers outside the book (null: not asked, or not known). */
  outside: number | null;
  /**
   * matched: every account of the book matched, its totals equal (and with --extras list nothing
   * outside it): exit 0; findings: an account of the book not matched, a book error or totals not
   * equal: exit 2; extras: the book matched but, with --extras list, the supplier holds accounts
   * outside it (or its totals differ): exit 3; interrupted: exit 130.
   */
  verdict: 'matched' | 'findings' | 'extras' | 'interrupted';
  /** verdict === 'matched'. */
  allMatched: boolean;
  durationMs: number;
  /** Accounts of the book reconciled in this run (not those of an earlier run's state), per second. */
  accountsPerSecond: number;
  /** Batches (≤ 500 accounts of one supplier) done in this run, and taken from an earlier run's state. */
  batches: { done: number; resumed: number };
  requests: { digests: number; accounts: number; listing: number; totals: number };
  interrupted: boolean;
  /** The suppliers whose listing of imported accounts could not be read (extra accounts not known). */
  listingUnavailable: string[];
  /** The suppliers whose totals could not be asked (the API has no totals operation). */
  totalsUnavailable: string[];
  /** Each phase (reading the book, digests, mismatched accounts, totals, extras): what it counted and how long it took. */
  phases: PhaseTiming[];
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

const VERDICTS: Record<ReconcileSummary['verdict'], string> = {
  matched: 'EVERY ACCOUNT MATCHED',
  findings: 'NOT EVERY ACCOUNT MATCHED',
  extras: 'EVERY ACCOUNT OF THE BOOK MATCHED, BUT THE SUPPLIER HOLDS ACCOUNTS OUTSIDE IT',
  interrupted: 'NOT EVERY ACCOUNT CHECKED',
};

function extraNote(s: ReconcileSummary): string {
  if (s.extrasMode === 'off') return 'not asked (--extras off)';
  if (s.outside === null) return s.extrasMode === 'list' ? 'not known (listing unavailable)' : 'not known (no totals operation)';
  if (s.extrasMode === 'count') return 'imported for the supplier, not in this book: counted, not a finding (--extras list signs off the whole supplier)';
  return CLASS_NOTES.extra;
}

/** The summary an operator reads at the end of a run: one screen. */
export function formatSummary(s: ReconcileSummary): string {
  const bookAccounts = CLASSES.reduce((n, c) => n + s.classes[c], 0);
  const head = s.interrupted ? 'reconciliation interrupted (run the same command again to resume)' : 'reconciliation finished';
  const lines = [
    `${head}: ${bookAccounts} accounts of the book in ${seconds(s.durationMs)}, ${s.accountsPerSecond} accounts/s — ${VERDICTS[s.verdict]}`,
  ];
  for (const c of [...CLASSES, 'extra'] as const) {
    let note = CLASS_NOTES[c];
    if (c === 'failed' && s.classes.failed > 0) {
      const codes = Object.entries(s.failedCodes).sort(([, a], [, b]) => b - a);
      note = codes.slice(0, 4).map(([code, n]) => `${code} ${n}`).join(', ') + (codes.length > 4 ? ', …' : '');
    }
    if (c === 'extra') note = extraNote(s);
    const n = c === 'extra' && s.outside === null ? '-' : String(s.classes[c]);
    lines.push(`  ${c.padEnd(11)} ${n.padStart(9)}  ${note}`);
  }
  if (s.bookErrors > 0) lines.push(`  ${'book errors'.padEnd(11)} ${String(s.bookErrors).padStart(9)}  records that are not an account, or repeat one`);
  if (s.listingUnavailable.length > 0) lines.push(`  extra accounts not known for: ${s.listingUnavailable.join(', ')} (listing unavailable)`);
  if (s.totalsUnavailable.length > 0) lines.push(`  supplier totals not known for: ${s.totalsUnavailable.join(', ')} (no totals operation)`);
  if (s.findings.length > 0) {
    lines.push('  first findings:');
    for (const f of s.findings) lines.push(`    ${f.class.padEnd(10)} ${f.import_supplier}/${f.external_account_number}${f.detail ? `: ${f.detail}` : ''}`);
  }
  const supplier = s.totals.supplier;
  lines.push(`  ${'totals'.padEnd(16)} ${'book'.padStart(16)} ${'platform'.padStart(16)}${supplier ? ` ${'whole supplier'.padStart(16)}` : ''}`);
  for (const k of TOTAL_KEYS) {
    // The book against its accounts as stored; with --extras list, against the whole supplier too.
    const mark = !totalEqual(k, s.totals.source, s.totals.platform) || (s.extrasMode === 'list' && supplier && !totalEqual(k, s.totals.source, supplier)) ? '  ≠' : '';
    lines.push(`  ${k.padEnd(16)} ${String(s.totals.source[k]).padStart(16)} ${String(s.totals.platform[k]).padStart(16)}${supplier ? ` ${String(supplier[k]).padStart(16)}` : ''}${mark}`);
  }
  lines.push(
    `  phases: ${timingsText(s.phases)}`,
    `  batches: ${s.batches.done} this run, ${s.batches.resumed} from an earlier run; requests: ${s.requests.digests} digests, ${s.requests.accounts} accounts, ${s.requests.totals} totals, ${s.requests.listing} listing pages`,
    `  report: ${s.reportJson}, ${s.reportCsv}${s.statePath ? `; state: ${s.statePath}` : ''}`,
  );
  return lines.join('\n');
}
