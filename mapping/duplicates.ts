import { MAP_CODES, type MapIssue } from './issues';
import type { TableSpec } from './spec';

const SEP = '\u0001';

/**
 * What making a table distinct by key changes, from the rows of its keys held more than once
 * (`_ord, _f, _l, _e, _v, _dk`, in read order; mapping/store.ts): per row's `ord`, null to drop it
 * (a row repeated whole after the key's first row), or the duplicate-key error it now carries (a row
 * whose values differ from the key's first row's, and that first row itself).
 */
export function duplicateChanges(table: TableSpec, rows: unknown[][], files: string[]): Map<number, MapIssue | null> {
  const key0 = table.key ?? [];
  const first = new Map<string, { ord: number; file: string; line: number; v: string; error: MapIssue | null }>();
  const changes = new Map<number, MapIssue | null>();
  for (const r of rows) {
    const row = { ord: r[0] as number, file: files[r[1] as number], line: r[2] as number, error: r[3] === null ? null : (JSON.parse(r[3] as string) as MapIssue), v: r[4] as string };
    const key = r[5] as string;
    const f = first.get(key);
    if (!f) {
      first.set(key, row);
      continue;
    }
    if (f.v === row.v) {
      changes.set(row.ord, null);
      continue;
    }
    const detail = `${table.name}: key ${key0.join(', ')} = ${key.split(SEP).join(', ')} on ${f.file}:${f.line} and ${row.file}:${row.line} with different values`;
    const dup: MapIssue = { code: MAP_CODES.duplicateKey, account: null, file: row.file, line: row.line, column: key0.join(','), value: key.split(SEP).join(','), ruleLine: table.line, detail };
    if (!row.error) changes.set(row.ord, dup);
    if (!f.error) {
      f.error = { ...dup, file: f.file, line: f.line };
      changes.set(f.ord, f.error);
    }
    }
  return changes;
}
