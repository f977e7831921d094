import fs from 'node:fs';
import { inTranche, type Tranche } from '../lib/tranche';
import { AccountBuilder } from './build';
import { MapStore } from './store';
import { streamTable } from './extract';
import type { MapIssue } from './issues';
import { ruleColumn, type AccountTrace } from './rules';
import { loadMapping } from './load';
import { writeReport, type MapStats } from './report';
import type { Condition, ListNode, Mapping, ObjectNode } from './spec';
import { createMapValidator } from './validate';

export interface MapOptions {
  mapping: string;
  extracts: string;
  out: string;
  /** Report files `<prefix>.csv|json|html`; default `<out>.map`. */
  reportPrefix?: string;
  /** Quarantined accounts (NDJSON: key, errors, what was mapped); default `<out>.quarantine.ndjson`. */
  quarantine?: string;
  tranche?: Tranche;
  /** Run the service's validator on each account (default true). */
  validate?: boolean;
  referenceData?: string;
  /** Run although conversion tables are marked unconfirmed (as `map init` writes them). */
  allowUnconfirmed?: boolean;
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
}

export interface MapSummary {
  stats: MapStats;
  /** Errors that stopped the run before any account was written (a file that cannot be read). */
  fatal: boolean;
  interrupted: boolean;
  report: { csv: string; json: string; html: string };
  book: string | null;
  quarantine: string;
}

/** A run that cannot start (unconfirmed conversion tables); a bad mapping throws MappingError. */
export class MapRunError extends Error {}

export async function runMap(o: MapOptions): Promise<MapSummary> {
  const started = Date.now();
  const mapping = loadMapping(o.mapping);
  const unconfirmed = unconfirmedLines(mapping.account);
  if (unconfirmed.length > 0 && !o.allowUnconfirmed) {
    throw new MapRunError(`${o.mapping}: conversion tables at line ${unconfirmed.join(', ')} are marked unconfirmed: confirm them (remove "unconfirmed: true") or run with --allow-unconfirmed`);
  }
  const prefix = o.reportPrefix ?? `${o.out}.map`;
  const quarantine = o.quarantine ?? `${o.out}.quarantine.ndjson`;
  const stats: MapStats = { rowsRead: {}, accounts: 0, valid: 0, quarantined: 0, outsideTranche: 0, orphans: 0, seconds: 0 };
  const fatal: MapIssue[] = [];
  // Each table's files are streamed into DuckDB (mapping/store.ts) and made distinct by key there:
  // the JavaScript heap holds a piece of a file at a time, then one account's rows.
  const store = await MapStore.open(mapping);
  try {
    return await mapWith(store);
  } finally {
    store.close();
  }

  async function mapWith(store: MapStore): Promise<MapSummary> {
  for (const table of mapping.tables.values()) {
    const { sink, end } = await store.appender(table);
    let read = 0;
    let inFile = 0;
    // After an error that stops the run, files are still read (for their own errors), not stored.
    const issues = streamTable(
      o.extracts,
      table,
      (file, line, values, error) => {
        inFile++;
        if (fatal.length === 0) sink(file, line, values, error);
      },
      (_, ok) => {
        if (ok) read += inFile;
        inFile = 0;
      },
    );
    await end();
    stats.rowsRead[table.name] = read;
    fatal.push(...issues);
  }
  const done = (issues: MapIssue[], extra: Partial<MapSummary>): MapSummary => {
    stats.seconds = (Date.now() - started) / 1000;
    return { stats, fatal: false, interrupted: false, book: null, quarantine, ...extra, report: writeReport(prefix, issues, stats) };
  };
  // A file that cannot be read leaves every account in doubt: no book at all, rather than one
  // whose accounts may each miss a row nobody saw.
  if (fatal.length > 0) return done(fatal, { fatal: true });

  // The accounts chosen (where, order, distinct) on the few columns that decide it; their rows whole
  // come from the store one account at a time.
  const candidates = await store.accountCandidates(selectionColumns(mapping));
  const accountRows = new AccountBuilder(mapping, new Map([[mapping.account.table, candidates]]), true).accountRows();
  await store.setAccounts(accountRows);
  const orphans = await store.orphans();
  stats.orphans = orphans.length;
  const issues: MapIssue[] = [...orphans];
  const validate = o.validate === false ? null : createMapValidator(o.referenceData);
  const perAccount = store.accounts(accountRows.length)[Symbol.asyncIterator]();
  const tmpBook = `${o.out}.partial`;
  const tmpQuarantine = `${quarantine}.partial`;
  const book = fs.openSync(tmpBook, 'w');
  const held = fs.openSync(tmpQuarantine, 'w');
  let interrupted = false;
  try {
    for (let i = 0; i < accountRows.length; i++) {
      if (o.signal?.aborted) {
        interrupted = true;
        break;
      }
      const own = await perAccount.next();
      if (own.done) throw new Error('the store ran out of accounts');
      const { account, trace } = new AccountBuilder(mapping, own.value.tables, true).build(own.value.account);
      const number = typeof account.external_account_number === 'string' ? account.external_account_number : trace.account;
      if (o.tranche && !inTranche(o.tranche, number)) {
        stats.outsideTranche++;
        continue;
      }
      stats.accounts++;
      const errors = [...trace.issues];
      if (errors.length === 0 && validate) {
        for (const e of await validate(account)) errors.push({ ...traced(trace, e.attr), code: e.code, account: trace.account, attr: e.attr, detail: e.detail });
      }
      if (errors.length > 0) {
        // The whole account is held back with its errors: never written short of a row.
        stats.quarantined++;
        issues.push(...errors);
        fs.writeSync(held, `${JSON.stringify({ account: trace.account, external_account_number: number, errors, mapped: account })}\n`);
      } else {
        stats.valid++;
        fs.writeSync(book, `${JSON.stringify(account)}\n`);
      }
      if (i % 200 === 0) o.onProgress?.(i + 1, accountRows.length);
    }
    o.onProgress?.(accountRows.length, accountRows.length);
  } finally {
    fs.closeSync(book);
    fs.closeSync(held);
    await perAccount.return?.(undefined);
  }
  if (interrupted) {
    // An interrupted run writes no book: a re-run maps the extract again from the start.
    fs.rmSync(tmpBook, { force: true });
    fs.rmSync(tmpQuarantine, { force: true });
    return done(issues, { interrupted: true });
  }
  fs.renameSync(tmpBook, o.out);
  fs.renameSync(tmpQuarantine, quarantine);
  return done(issues, { book: o.out });
  }
}

/** The row, column and rule of the value at a validation error's attr (or of the nearest object above it). */
function traced(trace: AccountTrace, attr: string): Partial<MapIssue> {
  const parts = attr.split('.');
  for (let n = parts.length; n >= 0; n--) {
    const at = trace.objects.get(parts.slice(0, n).join('.'));
    if (!at) continue;
    const rule = n < parts.length ? at.node.fields.get(parts[n]) : undefined;
    const column = ruleColumn(rule);
    const field = rule ? (at.node.path ? `${at.node.path}.${parts[n]}` : parts[n]) : at.node.path;
    return { file: at.row.file, line: at.row.line, column, value: column === undefined ? undefined : at.row.values[column], ruleLine: rule?.line ?? at.node.line, field };
  }
  return {};
}

/** The account table's columns its `where`, `order` (with their sign columns) and `distinct` read. */
function selectionColumns(mapping: Mapping): string[] {
  const node = mapping.account;
  const table = mapping.tables.get(node.table);
  const of = (c: Condition): string[] => ('of' in c ? c.of.flatMap(of) : [c.column]);
  const order = node.order.flatMap((c) => [c, table?.columns.get(c)?.signColumn].filter((x): x is string => x !== undefined));
  return [...new Set([...(node.where ? of(node.where) : []), ...order, ...(node.distinct ?? [])])];
}

function unconfirmedLines(node: ObjectNode | ListNode): number[] {
  const lines: number[] = [];
  for (const rule of node.fields.values()) {
    if (rule.kind === 'map' && rule.unconfirmed) lines.push(rule.line);
    if (rule.kind === 'list' || rule.kind === 'object') lines.push(...unconfirmedLines(rule.node));
  }
  return lines;
}

export type { Mapping };
