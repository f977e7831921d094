import type { DuckDBAppender, DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { openEngine, type EngineOptions } from './engine';
import { mappingEdges, storedRow, type Edge, type RawAccount } from './accountRows';
import type { Row, RowSink } from './extract';
import { duplicateChanges } from './duplicates';
import { MAP_CODES, type MapIssue } from './issues';
import { insertNative, type NativePlan } from './nativeCsv';
import type { ListNode, Mapping, TableSpec } from './spec';

const SEP = '\u0001';

/**
 * Rows read from DuckDB by one query (MapStore.accounts), as whole accounts: about a row group of
 * DuckDB's (122,880 rows), which the query reads whole, so a batch's accounts are about one row
 * group's. At most 4,096 accounts: their rows are in the heap at once (≈ 26 MB of typical accounts).
 */
const ROWS_PER_QUERY = 122_880;
const MAX_ACCOUNTS_PER_QUERY = 4096;

/**
 * The extract's rows held in DuckDB (a database of the run's own, in memory or in a file by the
 * extract's size, spilling to disk past its memory limit: mapping/engine.ts) rather than
 * in the JavaScript heap: a table per legacy table (`_ord` the read order, `_f` the file's number,
 * `_l` its physical line, `_e` the row's error as JSON, `_v` the declared columns' texts as one JSON
 * array, `_dk` the trimmed key of a table with one, and per join the trimmed key it joins on). Rows
 * are appended as they are read (mapping/extract.ts streams the files) and made distinct by key here.
 * DuckDB gives each child row the accounts it belongs to (joins up the tree, computed once per
 * list), finds orphans (anti-joins) and reads every list's rows by account, a batch of accounts at
 * a time, so building the book holds a batch's rows at a time (mapping/run.ts).
 */
export class MapStore {
  private readonly edges: Edge[] = [];
  /** Per table: its declared columns, in the order a stored row's texts follow them. */
  private readonly columns = new Map<string, string[]>();
  /** Per table: the key columns it carries, name → the columns whose trimmed values make the key. */
  private readonly keys = new Map<string, Map<string, string[]>>();
  private ord = 0;
  /** The extract's files by number (`_f`). */
  private readonly files: string[] = [];

  private constructor(
    private readonly mapping: Mapping,
    private readonly db: DuckDBInstance,
    private readonly conn: DuckDBConnection,
    private readonly engineClose: () => void,
  ) {
    this.edges.push(...mappingEdges(mapping));
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

  static async open(mapping: Mapping, engine?: EngineOptions): Promise<MapStore> {
    const { db, close } = await openEngine(engine);
    const conn = await db.connect();
    const store = new MapStore(mapping, db, conn, close);
    for (const t of mapping.tables.values()) {
      const keys = [...store.keys.get(t.name)!.keys()].map((k) => `, ${k} VARCHAR`);
      await conn.run(`CREATE TABLE ${store.tableId(t)} (_ord INTEGER, _f INTEGER, _l INTEGER, _e VARCHAR, _v VARCHAR, _nl INTEGER${t.key ? ', _dk VARCHAR' : ''}${keys.join('')})`);
    }
    return store;
  }

  private tableId(t: TableSpec | string): string {
    const name = typeof t === 'string' ? t : t.name;
    return `t${[...this.mapping.tables.keys()].indexOf(name)}`;
  }

  /**
   * A sink for a table's rows as they are read (mapping/extract.ts): each row gets its `ord`; `end`
   * closes the appender and makes the table distinct by key (deduplicate).
   */
  async appender(table: TableSpec): Promise<{ sink: RowSink; flush: () => void; end: () => Promise<void> }> {
    const appender: DuckDBAppender = await this.conn.createAppender(this.tableId(table));
    const cols = this.columns.get(table.name)!;
    const at = (c: string) => cols.indexOf(c);
    const keys = [...this.keys.get(table.name)!.values()].map((k) => k.map(at));
    const key = table.key?.map(at);
    let fileName = '';
    let fileNo = -1;
    let rows = 0;
    const text = (values: (string | undefined)[], i: number) => (i < 0 ? '' : (values[i] ?? '').trim());
    const sink: RowSink = (file, line, values, error) => {
      if (file !== fileName) {
        fileName = file;
        fileNo = this.fileNumber(file);
      }
      rows++;
      appender.appendInteger(this.ord++);
      appender.appendInteger(fileNo);
      appender.appendInteger(line);
      if (error) appender.appendVarchar(JSON.stringify(error));
      else appender.appendNull();
      // The row's texts as one JSON text: a value per call into DuckDB costs more than the row's
      // JSON.stringify and JSON.parse, and DuckDB only joins and orders on the keys beside it.
      appender.appendVarchar(JSON.stringify(values));
      appender.appendNull(); // _nl: DuckDB's reader's check (mapping/nativeCsv.ts)
      if (key) appender.appendVarchar(key.length === 1 ? text(values, key[0]) : key.map((i) => text(values, i)).join(SEP));
      for (const k of keys) appender.appendVarchar(k.length === 1 ? text(values, k[0]) : k.map((i) => text(values, i)).join(SEP));
      appender.endRow();
    };
    return {
      sink,
      // Rows appended are written before DuckDB reads a file itself into the table (nativeFile).
      flush: () => {
        if (rows > 0) appender.flushSync();
        rows = 0;
      },
      end: async () => {
        appender.closeSync();
        await this.deduplicate(table);
      },
    };
  }

  private fileNumber(file: string): number {
    const n = this.files.indexOf(file);
    return n >= 0 ? n : this.files.push(file) - 1;
  }

  /**
   * A file of the table read by DuckDB itself (mapping/nativeCsv.ts) into the table, its rows
   * numbered on from the last appended: how many, or null when it must be read by the map's reader.
   */
  async nativeFile(table: TableSpec, where: string, file: string, plan: NativePlan): Promise<number | null> {
    const target = { table: this.tableId(table), ord: this.ord, file: this.fileNumber(file), columns: this.columns.get(table.name)!, key: table.key, keys: [...this.keys.get(table.name)!.entries()] };
    const rows = await insertNative(this.conn, where, table, plan, target);
    if (rows !== null) this.ord += rows;
    return rows;
  }

  /**
   * A row repeated whole is one row (legacy extracts repeat rows when a join fanned out); two rows
   * with one key and different values are a duplicate key, an error on each row's account. DuckDB
   * finds the keys held more than once; only their rows come to JavaScript, compared in read order
   * with the key's first row (mapping/duplicates.ts).
   */
  private async deduplicate(table: TableSpec): Promise<void> {
    if (!table.key) return;
    const id = this.tableId(table);
    const result = await this.conn.runAndReadAll(
      `SELECT _ord, _f, _l, _e, _v, _dk FROM ${id} WHERE _dk IN (SELECT _dk FROM ${id} GROUP BY _dk HAVING count(*) > 1) ORDER BY _ord`,
    );
    const rows = result.getRows();
    if (rows.length === 0) return;
    const changes = duplicateChanges(table, rows, this.files);
    await this.conn.run('CREATE OR REPLACE TEMP TABLE _dup (_ord INTEGER, _e VARCHAR)');
    const appender = await this.conn.createAppender('_dup');
    for (const [ord, error] of changes) {
      appender.appendInteger(ord);
      if (error) appender.appendVarchar(JSON.stringify(error));
      else appender.appendNull();
      appender.endRow();
    }
    appender.closeSync();
    await this.conn.run(`DELETE FROM ${id} WHERE _ord IN (SELECT _ord FROM _dup WHERE _e IS NULL)`);
    await this.conn.run(`UPDATE ${id} SET _e = _dup._e FROM _dup WHERE ${id}._ord = _dup._ord AND _dup._e IS NOT NULL`);
  }

  /**
   * The account table's rows for choosing the accounts (its `where`, `order`, `distinct`): each with
   * its `ord`, file and line and only the columns those read, so a million accounts fit the heap.
   */
  async accountCandidates(columns: string[]): Promise<Row[]> {
    const table = this.mapping.account.table;
    const cols = this.columns.get(table)!;
    const wanted = columns.map((c) => [c, cols.indexOf(c)] as const).filter(([, i]) => i >= 0);
    const out: Row[] = [];
    const result = await this.conn.stream(`SELECT _ord, _f, _l, _v FROM ${this.tableId(table)} ORDER BY _ord`);
    for await (const rows of result.yieldRows()) {
      for (const r of rows) {
        const texts = wanted.length > 0 ? (JSON.parse(r[3] as string) as (string | null)[]) : [];
        const values: Record<string, string> = {};
        for (const [c, i] of wanted) if (texts[i] !== null && texts[i] !== undefined) values[c] = texts[i]!;
        out.push({ ord: r[0] as number, file: this.files[r[1] as number], line: r[2] as number, values });
      }
    }
    return out;
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

  /** A stored row from a result row of `_ord, _f, _l, _e, _v`. */
  private row(table: string, r: unknown[]): Row {
    return storedRow(this.columns.get(table)!, this.files, r);
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
        `SELECT c._ord, c._f, c._l, c._e, c._v FROM ${this.tableId(node.table)} c WHERE NOT EXISTS (SELECT 1 FROM ${this.tableId(parentTable)} p WHERE p.kp${e.id} = c.kc${e.id}) ORDER BY c._ord`,
      );
      for (const r of result.getRows()) {
        const row = this.row(node.table, r);
        const key = node.join.map(([c]) => (row.values[c] ?? '').trim()).join(',');
        issues.push({ code: MAP_CODES.orphan, account: null, file: row.file, line: row.line, column: node.join.map(([c]) => c).join(','), value: key, ruleLine: node.line, field: node.path, detail: `${node.table} row joins no ${parentTable} row on ${node.join.map(([c, p]) => `${c} = ${p}`).join(', ')}` });
      }
    }
    return issues;
  }

  /**
   * The rows of each account, account after account in the book's order: per list, the rows that
   * belong to the account, in no particular order (mapping/accountRows.ts makes Rows of them, in a
   * worker thread when there is one, and mapping/build.ts orders each list). Every list's rows in one
   * table, copied sorted by account into another (DuckDB's sort spills to disk past its memory
   * limit), then read `perQuery` accounts at a time (default: about ROWS_PER_QUERY rows), each
   * account's rows one text: only those accounts' rows are in the heap.
   */
  async *accounts(count: number, perQuery?: number): AsyncGenerator<RawAccount> {
    // Each list's rows with their account, a join at a time into one table, then sorted: a sort of a
    // table spills to disk within the memory limit (mapping/engine.ts) where one fed by every list's
    // join at once ran out of memory. Each row is one JSON text (mapping/accountRows.ts RawAccount).
    await this.conn.run('CREATE TABLE _rows (a INTEGER, r VARCHAR)');
    let rows = 0;
    for (const e of this.edges) {
      const inserted = await this.conn.run(
        `INSERT INTO _rows SELECT o.a, concat('[${e.id},', t._ord, ',', t._f, ',', t._l, ',', coalesce(t._e, 'null'), ',', t._v, ']') FROM own${e.id} o JOIN ${this.tableId(e.node.table)} t ON t._ord = o._ord`,
      );
      rows += inserted.rowsChanged;
    }
    // Sorted by account once into a table kept in that order, so that each batch of accounts below
    // reads the few row groups holding them (DuckDB skips the others by their least and greatest account).
    await this.conn.run('SET preserve_insertion_order = true');
    try {
      await this.conn.run('CREATE TABLE _sorted AS SELECT a, r FROM _rows ORDER BY a');
    } finally {
      await this.conn.run('SET preserve_insertion_order = false');
    }
    await this.conn.run('DROP TABLE _rows');
    // An account's rows come out of DuckDB as one text, a batch of accounts a query: one string out
    // of DuckDB per account instead of one per row (most of this thread's work when it took rows).
    // The rows of an account in any order: each row carries its list and read order, and
    // mapping/accountRows.ts and build.ts order them (an aggregate kept in order cost DuckDB ≈ 2 µs a row).
    const per = perQuery ?? Math.min(MAX_ACCOUNTS_PER_QUERY, Math.max(1, Math.floor(ROWS_PER_QUERY / Math.max(1, rows / Math.max(1, count)))));
    const batch = (from: number) => {
      const read = this.conn.runAndReadAll(`SELECT a, concat('[', string_agg(r, ','), ']') FROM _sorted WHERE a >= ${from} AND a < ${from + per} GROUP BY a ORDER BY a`);
      read.catch(() => undefined); // awaited below, unless the run stops first
      return read;
    };
    let next = count > 0 ? batch(0) : null;
    for (let from = 0; from < count; from += per) {
      const got = (await next!).getRows();
      // The next batch is read while this one is built.
      next = from + per < count ? batch(from + per) : null;
      const end = Math.min(from + per, count);
      for (let a = from, i = 0; a < end; a++, i++) {
        const r = got[i];
        if (r === undefined || r[0] !== a) throw new Error(`the store has no row for account ${a}`);
        yield { rows: r[1] as string };
      }
    }
  }

  /** The extract's files by number, as stored rows name them (`_f`). */
  fileNames(): string[] {
    return this.files;
  }

  close(): void {
    this.conn.closeSync();
    this.engineClose();
  }
}
