import fs from 'node:fs';
import readline from 'node:readline';
import type { AccountClass, PathDifference } from './compare';
import type { Totals } from './totals';

/**
 * The resumable state of a reconciliation: an NDJSON file whose first line names the book (path,
 * size, batch size) and each further line is one finished batch (its accounts' results and its
 * totals), appended in one write when the batch is done. A run that stops (Ctrl-C, an outage, a
 * crash) leaves it; the same command again reads the book again, skips the batches it holds and
 * reconciles the rest. A half-written last line (a crash in the write) is ignored: that batch is
 * done again. The report is streamed from this file, so no result is held in memory. A run that
 * finishes removes it.
 */

export interface AccountResult {
  import_supplier: string;
  external_account_number: string;
  /** Where in the book (`line 12`, a file name); null for an extra account. */
  where: string | null;
  class: AccountClass | 'extra' | 'book_error';
  status: string | null;
  kraken_identifier: string | null;
  error_code: string | null;
  /** mismatched: the differing paths (at most --max-paths, values of personal fields masked) and how many there are. */
  paths?: PathDifference[];
  paths_count?: number;
}

export interface BatchLine {
  kind: 'batch';
  batch: number;
  results: AccountResult[];
  source: Totals;
  platform: Totals;
}

export interface StateHeader {
  kind: 'header';
  version: 1;
  input: string;
  /** Bytes of the NDJSON file, or files of the folder: a different book is not resumed. */
  size: number;
  batch_size: number;
  /** The tranche reconciled (lib/tranche.ts describeTranche); absent for the whole book. */
  tranche?: string;
}

export class ReconcileStateError extends Error {
  readonly code = 'state_mismatch';
}

function sameBook(a: StateHeader, b: StateHeader): boolean {
  return a.version === b.version && a.input === b.input && a.size === b.size && a.batch_size === b.batch_size && (a.tranche ?? '') === (b.tranche ?? '');
}

/** Each finished batch of the file, once (the first line for a batch number), unreadable lines skipped. */
export async function* readBatches(file: string): AsyncGenerator<BatchLine> {
  if (!fs.existsSync(file)) return;
  const seen = new Set<number>();
  const lines = readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity });
  for await (const line of lines) {
    let value: BatchLine | StateHeader;
    try {
      value = JSON.parse(line) as BatchLine | StateHeader;
    } catch {
      continue;
    }
    if (value.kind !== 'batch' || seen.has(value.batch)) continue;
    seen.add(value.batch);
    yield value;
  }
}

export class ReconcileState {
  private constructor(
    readonly file: string,
    private fd: number,
  ) {}

  /**
   * Opens (or starts) the state of `header`'s book. With `restart`, or no file, a new one; a file
   * of another book (or batch size) is refused unless `restart`.
   */
  static async open(file: string, header: StateHeader, restart: boolean): Promise<ReconcileState> {
    if (!restart && fs.existsSync(file)) {
      const first = await firstLine(file);
      let existing: StateHeader | null = null;
      try {
        existing = JSON.parse(first) as StateHeader;
      } catch {
        existing = null;
      }
      if (!existing || existing.kind !== 'header' || !sameBook(existing, header)) {
        throw new ReconcileStateError(`the state file ${file} is of another book, batch size or tranche: remove it, or pass --restart`);
      }
      // A half-written last line gets a newline of its own, so the next batch starts clean.
      const size = fs.statSync(file).size;
      const fd = fs.openSync(file, 'a');
      if (size > 0 && !endsWithNewline(file, size)) fs.writeSync(fd, '\n');
      return new ReconcileState(file, fd);
    }
    const fd = fs.openSync(file, 'w');
    fs.writeSync(fd, `${JSON.stringify(header)}\n`);
    return new ReconcileState(file, fd);
  }

  append(line: BatchLine): void {
    fs.writeSync(this.fd, `${JSON.stringify(line)}\n`);
  }

  close(): void {
    fs.closeSync(this.fd);
  }

  remove(): void {
    fs.rmSync(this.file, { force: true });
  }
}

function endsWithNewline(file: string, size: number): boolean {
  const fd = fs.openSync(file, 'r');
  try {
    const b = Buffer.alloc(1);
    fs.readSync(fd, b, 0, 1, size - 1);
    return b[0] === 10;
  } finally {
    fs.closeSync(fd);
  }
}

async function firstLine(file: string): Promise<string> {
  const lines = readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity });
  for await (const line of lines) {
    lines.close();
    return line;
  }
  return '';
}
