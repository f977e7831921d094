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
  /** The folder the run's database file and DuckDB's spill files go in (a folder of its own under it, removed at the end). Default: DATA_IMPORT_MAP_TEMP_DIR, else the system's temp folder. */
  tempDir?: string;
}

/** Half the machine's memory, at most 4 GB: with the JavaScript heaps, a run stays under 8 GB. */
export function defaultMemoryLimit(): string {
  return `${Math.max(256, Math.min(4096, Math.floor(os.totalmem() / 2 / 2 ** 20)))}MB`;
}

/**
 * A DuckDB database in a file of a folder of its own (`data-import-map-*` under the temp folder),
 * with a memory limit and that folder as its spill directory: the rows of an extract larger than the
 * memory limit go to disk rather than exhaust the machine. `close` removes the folder.
 */
export async function openEngine(o: EngineOptions = {}): Promise<{ db: DuckDBInstance; close: () => void }> {
  const root = o.tempDir ?? process.env.DATA_IMPORT_MAP_TEMP_DIR ?? os.tmpdir();
  const memoryLimit = o.memoryLimit ?? process.env.DATA_IMPORT_MAP_MEMORY_LIMIT ?? defaultMemoryLimit();
  const dir = fs.mkdtempSync(path.join(root, 'data-import-map-'));
  try {
    const db = await DuckDBInstance.create(path.join(dir, 'rows.duckdb'), {
      memory_limit: memoryLimit,
      temp_directory: path.join(dir, 'spill'),
      preserve_insertion_order: 'false',
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
