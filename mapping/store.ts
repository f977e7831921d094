import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { allRules } from './build';
import type { Row } from './extract';
import { MAP_CODES, type MapIssue } from './issues';
import type { ListNode, Mapping, TableSpec } from './spec';

const SEP = '\u0001';

/** A list of the mapping with the table of the list (or account) it hangs from. */
interface Edge {
  id: number;
  node: ListNode;
  parent: Edge | null;
}

/**
 * The extract's rows held in DuckDB (in memory, spilling to disk past its memory limit) rather than
 * in the JavaScript heap: a table per legacy table (`_ord` the read order, `_file`, `_line`, the
 * row's reading error, the declared columns as text, and per join the trimmed key it joins on).
 * DuckDB gives each child row the accounts it belongs to (joins up the tree, computed once per
 * list), finds orphans (anti-joins) and streams every list's rows ordered by account, so building
 * the book holds one account's rows at a time (mapping/run.ts).
 */
export class MapStore {
  private readonly edges: Edge[] = [];
  /** Per table: its declared columns, in the order a stored row's texts follow them. */
  private readonly columns = new Map<string, string[]>();
  /** Per table: the key columns it carries, name → the columns whose trimmed values make the key. */
  private readonly keys = new Map<string, Map<string, string[]>>();
  private ord = 0;

  private constructor(
    private readonly mapping: Mapping,
    private readonly db: DuckDBInstance,
    private readonly conn: DuckDBConnection,
  ) {
    const walk = (node: ListNode, parent: Edge | null) => {
      const edge: Edge = { id: this.edges.length, node, parent };
      this.edges.push(edge);
      for (const rule of allRules(node)) if (rule.kind === 'list') walk(rule.node, edge);
    };
    walk(mapping.account, null);
    for (const t of mapping.tables.values()) {
      this.columns.set(t.name, [...t.columns.keys()]);
      this.keys.set(t.name, new Map());
    }
    for (const e of this.edges) {
      if (!e.parent) continue;
      this.keys.get(e.node.table)!.set(`kc${e.id}`, e.node.join.map(([c]) => c));
      this.keys.get(e.parent.node.table)!.set(`kp${e.id}`, e.node.join.map(([, p]) => p));
    }
  }

  static async open(mapping: Mapping): Promise<MapStore> {
    const db = await DuckDBInstance.create(':memory:', { preserve_insertion_order: 'false' });
    const conn = await db.connect();
    const store = new MapStore(mapping, db, conn);
    for (const t of mapping.tables.values()) {
      const keys = [...store.keys.get(t.name)!.keys()].map((k) => `, ${k} VARCHAR`);
      await conn.run(`CREATE TABLE ${store.tableId(t)} (_ord INTEGER, _row VARCHAR${keys.join('')})`);
    }
    return store;
  }

  private tableId(t: TableSpec | string): string {
    const name = typeof t === 'string' ? t : t.name;
    return `t${[...this.mapping.tables.keys()].indexOf(name)}`;
  }

  /** Appends a table's rows (already made distinct by key); each row gets its `ord`. */
  async append(table: TableSpec, rows: Row[]): Promise<void> {
    const appender = await this.conn.createAppender(this.tableId(table));
    const keys = [...this.keys.get(table.name)!.values()];
    const cols = this.columns.get(table.name)!;
    for (const row of rows) {
      row.ord = this.ord++;
      appender.appendInteger(row.ord);
      // The row whole as one JSON text: a value per call into DuckDB costs more than the row's
      // JSON.stringify and JSON.parse, and DuckDB only joins and orders on the keys beside it.
      appender.appendVarchar(JSON.stringify([row.file, row.line, row.error ?? null, ...cols.map((c) => row.values[c] ?? null)]));
      for (const k of keys) appender.appendVarchar(k.map((c) => (row.values[c] ?? '').trim()).join(SEP));
      appender.endRow();
    }
    appender.closeSync();
  }

  /** The accounts, in the book's order: the account table's rows as mapping/build.ts selected them. */
  async setAccounts(rows: Row[]): Promise<void> {
    await this.conn.run('CREATE TABLE own0 (_ord INTEGER, a INTEGER)');
    const appender = await this.conn.createAppender('own0');
    rows.forEach((r, a) => {
      appender.appendInteger(r.ord!);
      appender.appendInteger(a);
      appender.endRow();
    });
    appender.closeSync();
    // Each list's rows with the accounts they belong to, down the tree: a row joins its parent
    // list's rows on the list's key, whatever the parent's own filter (mapping/build.ts applies it).
    for (const e of this.edges) {
      if (!e.parent) continue;
      await this.conn.run(
        `CREATE TABLE own${e.id} AS SELECT DISTINCT c._ord AS _ord, o.a AS a FROM ${this.tableId(e.node.table)} c JOIN ${this.tableId(e.parent.node.table)} p ON c.kc${e.id} = p.kp${e.id} JOIN own${e.parent.id} o ON o._ord = p._ord`,
      );
    }
  }

  private row(table: string, r: unknown[], from: number): Row {
    const cols = this.columns.get(table)!;
    const [file, line, error, ...texts] = JSON.parse(r[from + 1] as string) as [string, number, MapIssue | null, ...(string | null)[]];
    const values: Record<string, string> = {};
    for (let i = 0; i < cols.length; i++) if (texts[i] !== null) values[cols[i]] = texts[i]!;
    const row: Row = { ord: r[from] as number, file, line, values };
    if (error) row.error = error;
    return row;
  }

  /**
   * Child rows that join no row of their parent's table: no account can own them, so each is an
   * error of its own (a meter reading whose meter the extract lost must not vanish unreported).
   */
  async orphans(): Promise<MapIssue[]> {
    const issues: MapIssue[] = [];
    for (const e of this.edges) {
      if (!e.parent || e.node.join.length === 0) continue;
      const node = e.node;
      const parentTable = e.parent.node.table;
      const result = await this.conn.runAndReadAll(
        `SELECT * FROM ${this.tableId(node.table)} c WHERE NOT EXISTS (SELECT 1 FROM ${this.tableId(parentTable)} p WHERE p.kp${e.id} = c.kc${e.id}) ORDER BY c._ord`,
      );
      for (const r of result.getRows()) {
        const row = this.row(node.table, r, 0);
        const key = node.join.map(([c]) => (row.values[c] ?? '').trim()).join(',');
        issues.push({ code: MAP_CODES.orphan, account: null, file: row.file, line: row.line, column: node.join.map(([c]) => c).join(','), value: key, ruleLine: node.line, field: node.path, detail: `${node.table} row joins no ${parentTable} row on ${node.join.map(([c, p]) => `${c} = ${p}`).join(', ')}` });
      }
    }
    return issues;
  }

  /**
   * The rows of each account, account after account in the book's order: per table, the rows of
   * every list over that table that belong to the account, in read order. One streaming query per
   * list, merged on the account's number, so only the current account's rows are in memory.
   */
  async *accounts(count: number): AsyncGenerator<Map<string, Row[]>> {
    const lists = this.edges.filter((e) => e.parent);
    const conns: DuckDBConnection[] = [];
    const cursors: { edge: Edge; it: AsyncIterator<unknown[][]>; rows: unknown[][]; at: number; done: boolean }[] = [];
    try {
      for (const edge of lists) {
        const conn = await this.db.connect();
        conns.push(conn);
        const result = await conn.stream(`SELECT o.a, t.* FROM own${edge.id} o JOIN ${this.tableId(edge.node.table)} t ON t._ord = o._ord ORDER BY o.a, t._ord`);
        cursors.push({ edge, it: result.yieldRows()[Symbol.asyncIterator](), rows: [], at: 0, done: false });
      }
      for (let a = 0; a < count; a++) {
        const tables = new Map<string, Row[]>();
        for (const c of cursors) {
          const table = c.edge.node.table;
          for (;;) {
            if (c.at >= c.rows.length) {
              if (c.done) break;
              const next = await c.it.next();
              if (next.done) {
                c.done = true;
                break;
              }
              c.rows = next.value;
              c.at = 0;
              continue;
            }
            const r = c.rows[c.at];
            if ((r[0] as number) !== a) break;
            c.at++;
            let list = tables.get(table);
            if (!list) tables.set(table, (list = []));
            list.push(this.row(table, r, 1));
          }
        }
        // A table under two lists: its rows once each, in read order.
        for (const [table, list] of tables) {
          if (lists.filter((e) => e.node.table === table).length < 2) continue;
          const seen = new Set<number>();
          tables.set(
            table,
            list.sort((x, y) => x.ord! - y.ord!).filter((r) => !seen.has(r.ord!) && seen.add(r.ord!)),
          );
        }
        yield tables;
      }
    } finally {
      for (const c of conns) c.closeSync();
    }
  }

  close(): void {
    this.conn.closeSync();
    this.db.closeSync();
  }
}
