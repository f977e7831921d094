import fs from 'node:fs';
import path from 'node:path';
import type { Tranche } from '../lib/tranche';
import type { RawAccount } from './accountRows';
import { AccountBuilder } from './build';
import { MapStore } from './store';
import { tableFiles } from './extract';
import { loadTable } from './loadExtract';
import type { MapIssue } from './issues';
import type { AccountMapper, AccountOutcome } from './mapAccount';
import { loadMapping } from './load';
import { ObjectCounter } from './objectStats';
import { writeReport, type MapStats } from './report';
import type { Condition, ListNode, Mapping, ObjectNode } from './spec';
import { accountMapper, defaultMapThreads, MapThreads, type MapThreadSetup } from './threads';

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
  /**
   * Worker threads that build and validate the accounts (mapping/threads.ts); 0 does it in this
   * thread. Default: none for an extract under 8 MB, else the machine's cores but one, at least
   * one. The book, the quarantine and the report are the same either way.
   */
  threads?: number;
  /** DuckDB's memory limit and the folder its database and spill files go in (mapping/engine.ts). */
  memoryLimit?: string;
  tempDir?: string;
  /** false: every file through the map's own reader, none through DuckDB's (mapping/nativeCsv.ts); for comparing the two. */
  nativeCsv?: boolean;
  /** Where DuckDB holds the rows, in memory or in a file; default by the extract's size (mapping/engine.ts inMemory). For comparing the two. */
  inMemory?: boolean;
  /** Accounts read from DuckDB by one query (default: about a row group of DuckDB's rows, mapping/store.ts); for tests of the batches' edges. */
  accountsPerQuery?: number;
  signal?: AbortSignal;
  /** The accounts done of those chosen, with the run's counts so far (every 200 accounts, and at the end). */
  onProgress?: (done: number, total: number, stats: Readonly<MapStats>) => void;
  /** The rows read from the extract so far (every 4096 rows, a file DuckDB read at once, and at each table's end), before any account is mapped. */
  onRowsRead?: (rows: number) => void;
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
  const stats: MapStats = { rowsRead: {}, accounts: 0, valid: 0, quarantined: 0, outsideTranche: 0, orphans: 0, objects: [], seconds: 0 };
  const objects = new ObjectCounter(mapping);
  const fatal: MapIssue[] = [];
  // Each table's files are streamed into DuckDB (mapping/store.ts) and made distinct by key there:
  // the JavaScript heap holds a piece of a file at a time, then a batch of accounts' rows.
  // The threads start now: loading their code and the validator overlaps the loading of the extract.
  const setup: MapThreadSetup = { mapping: o.mapping, validate: o.validate !== false, referenceData: o.referenceData, tranche: o.tranche };
  const bytes = extractBytes(mapping, o.extracts);
  const threads = o.threads ?? (bytes < THREADS_FROM_BYTES ? 0 : defaultMapThreads());
  const pool = threads > 0 ? new MapThreads(setup, threads) : null;
  try {
    const store = await MapStore.open(mapping, { memoryLimit: o.memoryLimit, tempDir: o.tempDir, extractBytes: bytes, inMemory: o.inMemory });
    try {
      return await mapWith(store);
    } finally {
      store.close();
    }
  } finally {
    await pool?.close();
  }

  async function mapWith(store: MapStore): Promise<MapSummary> {
  let rowsSoFar = 0;
  for (const table of mapping.tables.values()) {
    const { read, fatal: issues } = await loadTable(store, o.extracts, table, () => fatal.length > 0, {
      native: o.nativeCsv !== false,
      onRows: (added) => {
        const before = rowsSoFar;
        rowsSoFar += added;
        if (before >>> 12 !== rowsSoFar >>> 12) o.onRowsRead?.(rowsSoFar);
      },
    });
    stats.rowsRead[table.name] = read;
    o.onRowsRead?.(rowsSoFar);
    fatal.push(...issues);
  }
  const done = (issues: MapIssue[], extra: Partial<MapSummary>): MapSummary => {
    stats.seconds = (Date.now() - started) / 1000;
    stats.objects = objects.result(stats.rowsRead);
    return { stats, fatal: false, interrupted: false, book: null, quarantine, ...extra, report: writeReport(prefix, issues, stats) };
  };
  // A file that cannot be read leaves every account in doubt: no book at all, rather than one
  // whose accounts may each miss a row nobody saw.
  if (fatal.length > 0) return done(fatal, { fatal: true });

  // The accounts chosen (where, order, distinct) on the few columns that decide it; their rows whole
  // come from the store one account at a time.
  const candidates = await store.accountCandidates(selectionColumns(mapping));
  const accountRows = new AccountBuilder(mapping, new Map([[mapping.account.table, candidates]])).accountRows();
  await store.setAccounts(accountRows);
  const orphans = await store.orphans();
  stats.orphans = orphans.length;
  objects.orphans(orphans);
  const issues: MapIssue[] = [...orphans];
  // Each account is built, kept to the tranche, validated and written out as a line by the threads
  // (or here), and comes back in the book's order: this thread reads the rows and writes lines.
  const raw = store.accounts(accountRows.length, o.accountsPerQuery);
  const outcomes = (pool ? pool.map(store.fileNames(), raw, () => accountMapper(setup, store.fileNames())) : inThisThread(accountMapper(setup, store.fileNames()), raw))[Symbol.asyncIterator]();
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
      const next = await outcomes.next();
      if (next.done) throw new Error('the store ran out of accounts');
      const outcome = next.value;
      objects.account(outcome);
      if (outcome.outside) {
        stats.outsideTranche++;
        continue;
      }
      stats.accounts++;
      if (outcome.errors.length > 0) {
        stats.quarantined++;
        issues.push(...outcome.errors);
        fs.writeSync(held, outcome.line);
      } else {
        stats.valid++;
        fs.writeSync(book, outcome.line);
      }
      if (i % 200 === 0) o.onProgress?.(i + 1, accountRows.length, stats);
    }
    o.onProgress?.(accountRows.length, accountRows.length, stats);
  } finally {
    fs.closeSync(book);
    fs.closeSync(held);
    await outcomes.return?.(undefined);
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

async function* inThisThread(mapper: AccountMapper, accounts: AsyncIterable<RawAccount>): AsyncGenerator<AccountOutcome> {
  for await (const raw of accounts) yield await mapper.map(raw);
}

/**
 * A smaller extract is mapped in the run's own thread: starting a thread (its code loaded, the
 * validator's schema compiled) costs more CPU than a few hundred accounts' building and validating.
 */
const THREADS_FROM_BYTES = 8_000_000;

function extractBytes(mapping: Mapping, dir: string): number {
  let bytes = 0;
  for (const t of mapping.tables.values()) for (const f of tableFiles(dir, t.files)) bytes += fs.statSync(path.join(dir, f)).size;
  return bytes;
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
