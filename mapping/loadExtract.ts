import path from 'node:path';
import { noFiles, streamTableFile, tableFiles, type FirstHeader } from './extract';
import type { MapIssue } from './issues';
import { nativePlan } from './nativeCsv';
import type { TableSpec } from './spec';
import type { MapStore } from './store';

/**
 * A table's files into the store, one after another in name order: a UTF-8 CSV file that DuckDB's
 * reader reads exactly as the map's (mapping/nativeCsv.ts) is read by DuckDB, any other by the map's
 * reader a piece at a time (mapping/extract.ts), its rows appended. Returns the rows read from files
 * without an error that stops the run, and those errors; after such an error (`stopped`, this
 * table's or an earlier one's) files are still read for their own errors, and nothing is stored.
 * `onRows` is told of every row as it is read (a file DuckDB read: its rows at once), for progress.
 */
export async function loadTable(
  store: MapStore,
  dir: string,
  table: TableSpec,
  stopped: () => boolean,
  o: { native?: boolean; onRows?: (added: number) => void } = {},
): Promise<{ read: number; fatal: MapIssue[] }> {
  const files = tableFiles(dir, table.files);
  if (files.length === 0) return { read: 0, fatal: [noFiles(dir, table)] };
  const fatal: MapIssue[] = [];
  const first: FirstHeader = { header: null };
  const { sink, flush, end } = await store.appender(table);
  let read = 0;
  for (const file of files) {
    const where = path.join(dir, file);
    const plan = o.native === false || stopped() || fatal.length > 0 ? null : nativePlan(where, table, first.header);
    if (plan) {
      flush();
      const rows = await store.nativeFile(table, where, file, plan);
      if (rows !== null) {
        first.header ??= plan.header;
        read += rows;
        o.onRows?.(rows);
        continue;
      }
    }
    let inFile = 0;
    const issues = streamTableFile(dir, file, table, first, (f, line, values, error) => {
      inFile++;
      o.onRows?.(1);
      if (!stopped() && fatal.length === 0) sink(f, line, values, error);
    });
    if (issues.length === 0) read += inFile;
    fatal.push(...issues);
  }
  await end();
  return { read, fatal };
}
