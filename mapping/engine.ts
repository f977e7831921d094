import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';

/** Where and how DuckDB holds the extract's rows (`data-import map --memory-limit`, `--temp-dir`). */
export interface EngineOptions {
  /**
   * DuckDB's memory limit, as DuckDB reads it (`4GB`, `512MB`); past it DuckDB writes to its temp
   * directory. Default: DATA_IMPORT_MAP_MEMORY_LIMIT, else half the machine's memory, at most 4 GB.
   */
  memoryLimit?: string;
  /** The folder the run's database file (if any) and DuckDB's spill files go in (a folder of its own under it, removed at the end). Default: DATA_IMPORT_MAP_TEMP_DIR, else the system's temp folder. */
  tempDir?: string;
  /**
   * The bytes of the extract, which decide where DuckDB holds the rows (inMemory): in memory when
   * they are at most a quarter of the memory limit, else in a database file. Unknown: a file.
   */
  extractBytes?: number;
  /** In memory (true) or in a file (false) whatever the extract's size; for comparing the two. */
  inMemory?: boolean;
}

/**
 * Whether the rows are held in an in-memory database (its blocks spilled to the temp folder past the
 * limit) rather than a database file. Uncompressed, the rows and their sorted copy take about three
 * times the CSV: an extract within a quarter of the limit fits, and is loaded without compressing
 * and checkpointing a file (10,000 accounts: ≈ 20 % less wall time); a larger one would spill most
 * of its rows uncompressed, and the file's compression wins (100,000 accounts: 192 s in a file, 256 s
 * in memory spilling 6 GB; bench/RESULTS.md).
 */
export function inMemory(extractBytes: number | undefined, memoryLimit: string): boolean {
  const limit = sizeBytes(memoryLimit);
  return extractBytes !== undefined && !Number.isNaN(limit) && extractBytes * 4 <= limit;
}

/**
 * Bytes of a size as DuckDB reads it, a number and a unit, any case (`4GB` = 4·10⁹, `4GiB` =
 * 4·2³⁰, `512MB`, `100B`); NaN for a text it is not. `--memory-limit` is checked with it.
 */
export function sizeBytes(text: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*((?:[kmgt]i?)?b)$/i.exec(text.trim());
  if (!m) return NaN;
  const unit = m[2].toLowerCase();
  const power = ' kmgt'.indexOf(unit.length > 1 ? unit[0] : ' ');
  return Number(m[1]) * (unit.includes('i') ? 1024 : 1000) ** power;
}

/**
 * DuckDB's threads for a memory limit: one per GiB, at most the cores. Each thread of a sort holds
 * buffers of its own: at 300 MB two threads sorting the rows ran out of memory where one spilled.
 */
export function engineThreads(memoryLimit: string): number {
  const bytes = sizeBytes(memoryLimit);
  const cores = os.availableParallelism();
  return Number.isNaN(bytes) ? cores : Math.max(1, Math.min(cores, Math.floor(bytes / 2 ** 30)));
}

/** Half the machine's memory, at most 4 GB: with the JavaScript heaps, a run stays under 8 GB. */
export function defaultMemoryLimit(): string {
  return `${Math.max(256, Math.min(4096, Math.floor(os.totalmem() / 2 / 2 ** 20)))}MB`;
}

/**
 * A DuckDB database, in memory or in a file (inMemory), with a memory limit and a folder of its own
 * (`data-import-map-*` under the temp folder) for the file and as its spill directory: past the
 * limit DuckDB writes blocks of the tables and of its sorts there, so the rows of an extract larger
 * than the memory limit go to disk rather than exhaust the machine. `close` removes the folder.
 */
export async function openEngine(o: EngineOptions = {}): Promise<{ db: DuckDBInstance; close: () => void }> {
  const root = o.tempDir ?? process.env.DATA_IMPORT_MAP_TEMP_DIR ?? os.tmpdir();
  const memoryLimit = o.memoryLimit ?? process.env.DATA_IMPORT_MAP_MEMORY_LIMIT ?? defaultMemoryLimit();
  const dir = fs.mkdtempSync(path.join(root, 'data-import-map-'));
  try {
    const db = await DuckDBInstance.create((o.inMemory ?? inMemory(o.extractBytes, memoryLimit)) ? ':memory:' : path.join(dir, 'rows.duckdb'), {
      memory_limit: memoryLimit,
      temp_directory: path.join(dir, 'spill'),
      preserve_insertion_order: 'false',
      threads: String(engineThreads(memoryLimit)),
    });
    return {
      db,
      close: () => {
        db.closeSync();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}
