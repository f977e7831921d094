import { mappingEdges } from './accountRows';
import type { Row } from './extract';
import { MAP_CODES, type MapIssue } from './issues';
import type { AccountTrace } from './rules';
import type { Mapping } from './spec';

/**
 * Where the rows of each table of the mapping (an object of the legacy system: accounts,
 * customers, meters, readings) went in a run: `read` = `valid` + `quarantined` + `outsideTranche`
 * + `orphans` + `leftOut`, each row counted once.
 */
export interface ObjectStats {
  table: string;
  read: number;
  /** Rows in the accounts mapped: `valid` + `quarantined`. */
  mapped: number;
  /** Rows in the accounts written to the book. */
  valid: number;
  /** Rows in the accounts held in quarantine. */
  quarantined: number;
  /** Rows in accounts outside the tranche. */
  outsideTranche: number;
  /** Rows that join no row of their parent table (each reported as an error, once per list over the table). */
  orphans: number;
  /**
   * The rest: rows a list's `where` filters out or its `distinct` folds into another, rows repeated
   * whole, rows of accounts the account table's `where` or `distinct` does not choose, and, in a run
   * stopped early, the rows of the accounts not reached.
   */
  leftOut: number;
}

/**
 * The rows of each table that one account's objects were built from (its own row, each list item's
 * row; a row under two lists once): counted where the account is built, so a worker thread sends
 * back only these few numbers (mapping/mapAccount.ts).
 */
export function rowsUsed(trace: AccountTrace): Record<string, number> {
  const rows = new Map<string, Set<Row>>();
  for (const { row, node } of trace.objects) {
    // An object that is not a list's item (a nested object) is built from its parent's row.
    if (!('table' in node)) continue;
    const table = node.table as string;
    let set = rows.get(table);
    if (!set) rows.set(table, (set = new Set()));
    set.add(row);
  }
  const out: Record<string, number> = {};
  for (const [table, set] of rows) out[table] = set.size;
  return out;
}

type Counts = Omit<ObjectStats, 'table' | 'read' | 'mapped' | 'leftOut'>;

/** Adds up, per table, the rows of each account's outcome and the orphan rows of a run. */
export class ObjectCounter {
  private readonly counts = new Map<string, Counts>();
  private readonly tableOfPath: Map<string, string>;

  constructor(private readonly mapping: Mapping) {
    for (const table of mapping.tables.keys()) this.counts.set(table, { valid: 0, quarantined: 0, outsideTranche: 0, orphans: 0 });
    this.tableOfPath = new Map(mappingEdges(mapping).map((e) => [e.node.path, e.node.table]));
  }

  account(outcome: { outside: boolean; errors?: readonly unknown[]; rows: Record<string, number> }): void {
    const into: keyof Counts = outcome.outside ? 'outsideTranche' : (outcome.errors?.length ?? 0) > 0 ? 'quarantined' : 'valid';
    for (const [table, n] of Object.entries(outcome.rows)) this.of(table)[into] += n;
  }

  orphans(issues: readonly MapIssue[]): void {
    // A table under two lists (readings: transfer and history) reports an orphan row under each: one row.
    const seen = new Set<string>();
    for (const i of issues) {
      const table = i.code === MAP_CODES.orphan && i.field ? this.tableOfPath.get(i.field) : undefined;
      const row = `${table}\u0000${i.file}\u0000${i.line}`;
      if (!table || seen.has(row)) continue;
      seen.add(row);
      this.of(table).orphans++;
    }
  }

  /** Every table of the mapping, in its order, with the rows read of each. */
  result(rowsRead: Record<string, number>): ObjectStats[] {
    return [...this.mapping.tables.keys()].map((table) => {
      const c = this.of(table);
      const read = rowsRead[table] ?? 0;
      const mapped = c.valid + c.quarantined;
      return { table, read, mapped, ...c, leftOut: read - mapped - c.outsideTranche - c.orphans };
    });
  }

  private of(table: string): Counts {
    let c = this.counts.get(table);
    if (!c) this.counts.set(table, (c = { valid: 0, quarantined: 0, outsideTranche: 0, orphans: 0 }));
    return c;
  }
}
