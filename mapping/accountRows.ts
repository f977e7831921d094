import { allRules } from './build';
import type { Row } from './extract';
import type { MapIssue } from './issues';
import type { ListNode, Mapping } from './spec';

/** A list of the mapping with the list (or account) it hangs from; edge 0 is the account itself. */
export interface Edge {
  id: number;
  node: ListNode;
  parent: Edge | null;
}

/** The mapping's lists, depth first from the account (the store's `own<id>` tables follow these ids). */
export function mappingEdges(mapping: Mapping): Edge[] {
  const edges: Edge[] = [];
  const walk = (node: ListNode, parent: Edge | null) => {
    const edge: Edge = { id: edges.length, node, parent };
    edges.push(edge);
    for (const rule of allRules(node)) if (rule.kind === 'list') walk(rule.node, edge);
  };
  walk(mapping.account, null);
  return edges;
}

/**
 * One account's rows as the store gives them (mapping/store.ts accounts): one JSON text, an array
 * of `[edge id, _ord, _f, _l, _e, _v]` per row (`_e` the row's error or null, `_v` its texts),
 * in no particular order (edge 0 is the account's own row). DuckDB writes each row's text
 * (the stored `_e` and `_v` are JSON already), so a row costs one value out of DuckDB, the account
 * crosses to a worker thread (mapping/threads.ts) as one string, and is parsed there at once.
 */
export interface RawAccount {
  rows: string;
}

/** A row of a RawAccount, parsed. */
type RawRow = [edge: number, ord: number, file: number, line: number, error: MapIssue | null, texts: (string | null)[]];

/** What a stored row needs to become a Row: the tables' declared columns and the extract's files. */
export interface RowLayout {
  edges: Edge[];
  /** Per table: its declared columns, in the order a stored row's texts follow them. */
  columns: Map<string, string[]>;
  /** The extract's files by number (`_f`). */
  files: string[];
  /** The tables under two lists or more (readings: transfer and history): an account's rows of them come once per list. */
  shared: Set<string>;
}

export function rowLayout(mapping: Mapping, files: string[]): RowLayout {
  const edges = mappingEdges(mapping);
  const lists = edges.filter((e) => e.parent).map((e) => e.node.table);
  const shared = new Set(lists.filter((t, i) => lists.indexOf(t) !== i));
  return { edges, columns: new Map([...mapping.tables.values()].map((t) => [t.name, [...t.columns.keys()]])), files, shared };
}

/** A Row from a stored row's number, file number, line, error and texts (the declared columns' in order, null for none). */
function rowOf(columns: string[], files: string[], ord: number, file: number, line: number, error: MapIssue | null, texts: (string | null)[]): Row {
  const values: Record<string, string> = {};
  for (let i = 0; i < columns.length; i++) if (texts[i] !== null) values[columns[i]] = texts[i]!;
  const row: Row = { ord, file: files[file], line, values };
  if (error !== null) row.error = error;
  return row;
}

/** A stored row from `_ord, _f, _l, _e, _v` as DuckDB gives them (the error and the texts as JSON). */
export function storedRow(columns: string[], files: string[], r: unknown[]): Row {
  const error = r[3] === null ? null : (JSON.parse(r[3] as string) as MapIssue);
  return rowOf(columns, files, r[0] as number, r[1] as number, r[2] as number, error, JSON.parse(r[4] as string) as (string | null)[]);
}

/**
 * The account's own row and, per table, the rows of every list over that table that belong to it
 * (a table under two lists: its rows once each, in read order), as mapping/build.ts takes them: it
 * orders every list itself.
 */
export function accountRows(layout: RowLayout, raw: RawAccount): { account: Row; tables: Map<string, Row[]> } {
  const tables = new Map<string, Row[]>();
  let account: Row | null = null;
  for (const r of JSON.parse(raw.rows) as RawRow[]) {
    const edge = layout.edges[r[0]];
    const table = edge.node.table;
    const columns = layout.columns.get(table)!;
    if (!edge.parent) {
      account ??= rowOf(columns, layout.files, r[1], r[2], r[3], r[4], r[5]);
      continue;
    }
    let list = tables.get(table);
    if (!list) tables.set(table, (list = []));
    list.push(rowOf(columns, layout.files, r[1], r[2], r[3], r[4], r[5]));
  }
  if (!account) throw new Error('the store gave an account without its row');
  for (const [table, list] of tables) {
    if (!layout.shared.has(table)) continue;
    const seen = new Set<number>();
    tables.set(
      table,
      list.sort((x, y) => x.ord! - y.ord!).filter((r) => !seen.has(r.ord!) && seen.add(r.ord!)),
    );
  }
  return { account, tables };
}
