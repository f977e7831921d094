import fs from 'node:fs';
import { once } from 'node:events';
import type { AccountRecord, MigrationSummary } from './types';
import { timingsText } from '../shared/phases';
import { csvCell } from '../shared/report';

/**
 * The report of a run: `<prefix>.json` (summary + one entry per account) and `<prefix>.csv`
 * (one row per account, or one row per error for accounts with errors). Both are streamed from
 * the state, so a book of millions of accounts does not need its report in memory.
 */

export const CSV_COLUMNS = ['external_account_number', 'final_status', 'kraken_identifier', 'error_code', 'attr', 'detail', 'book'] as const;

export interface ReportRow {
  external_account_number: string;
  record: AccountRecord;
}

async function writeLines(file: string, lines: Iterable<string>): Promise<void> {
  const stream = fs.createWriteStream(file);
  const failed = once(stream, 'error').then(([err]) => Promise.reject(err));
  failed.catch(() => undefined);
  for (const line of lines) {
    if (!stream.write(line)) await Promise.race([once(stream, 'drain'), failed]);
  }
  stream.end();
  await Promise.race([once(stream, 'finish'), failed]);
}

function* csvLines(rows: () => Iterable<ReportRow>): Generator<string> {
  yield `${CSV_COLUMNS.join(',')}\n`;
  for (const { external_account_number: ext, record } of rows()) {
    const base = [ext, record.status, record.kraken_identifier ?? ''];
    const book = record.book ?? '';
    const errors = record.errors ?? [];
    if (errors.length === 0) yield `${[...base, '', '', '', book].map(csvCell).join(',')}\n`;
    for (const e of errors) yield `${[...base, e.code, e.attr, e.detail, book].map(csvCell).join(',')}\n`;
  }
}

function* jsonLines(summary: MigrationSummary, rows: () => Iterable<ReportRow>): Generator<string> {
  yield `{"summary":${JSON.stringify(summary)},\n"accounts":[`;
  let first = true;
  for (const { external_account_number, record } of rows()) {
    const entry = {
      external_account_number,
      import_supplier: record.import_supplier,
      final_status: record.status,
      kraken_identifier: record.kraken_identifier ?? null,
      errors: record.errors ?? [],
      book: record.book ?? null,
    };
    yield `${first ? '\n' : ',\n'}${JSON.stringify(entry)}`;
    first = false;
  }
  yield '\n]}\n';
}

export async function writeReport(prefix: string, summary: MigrationSummary, rows: () => Iterable<ReportRow>): Promise<void> {
  await writeLines(`${prefix}.json`, jsonLines(summary, rows));
  await writeLines(`${prefix}.csv`, csvLines(rows));
}

function seconds(ms: number): string {
  return ms < 60_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** The summary an operator reads at the end of a run. */
export function formatSummary(s: MigrationSummary): string {
  const counts = Object.entries(s.counts)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, n]) => `  ${status.padEnd(20)} ${n}`);
  const latency =
    s.latencyMs.samples === 0
      ? `n/a (${s.mode === 'stage' ? 'staging imports nothing' : 'no account went from 201 to PROCESSED in this run'})`
      : `p50 ${s.latencyMs.p50} ms, p95 ${s.latencyMs.p95} ms over ${s.latencyMs.samples} accounts (measured by polling: resolution ${s.latencyMs.resolutionMs} ms)`;
  const lines = [
    `${s.interrupted ? 'migration interrupted' : s.apiUnavailable ? 'migration stopped: the API stayed unavailable past --outage-timeout' : s.timedOut ? 'migration stopped at --timeout' : 'migration finished'} (${s.mode}): ${s.total} records in ${seconds(s.durationMs)}, ${s.accountsPerSecond} accounts/s`,
    ...counts,
    `  skipped (done in an earlier run): ${s.skipped}; followed from an earlier run: ${s.resumed}`,
    `  requests: ${s.requests.create} create, ${s.requests.validate} validate, ${s.requests.stage ? `${s.requests.stage} stage, ` : ''}${s.requests.process ? `${s.requests.process} process, ` : ''}${s.requests.status} status, ${s.requests.token} token; ${s.requests.retries} retries, ${s.requests.throttled} throttled (429)`,
    `  ${s.mode === 'process' ? 'process' : 'create'} → PROCESSED latency: ${latency}`,
    `  phases: ${timingsText(s.phases ?? [])}`,
    ...(s.outages.count > 0 ? [`  API outages waited out: ${s.outages.count}, ${seconds(s.outages.totalMs)} in all, longest ${seconds(s.outages.longestMs)}`] : []),
    `  report: ${s.reportJson}, ${s.reportCsv}${s.statePath ? `; state: ${s.statePath}` : ''}`,
  ];
  return lines.join('\n');
}
