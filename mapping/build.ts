import { accountFields } from './accountFields';
import { convertValue } from './convert';
import type { Row } from './extract';
import { evaluate, holds, type AccountTrace, type Scope } from './rules';
import type { ListNode, Mapping, ObjectNode, Rule, TableSpec } from './spec';

const SEP = '\u0001';

/**
 * The Account tree from the extract's rows: the account table's rows (filtered, ordered, distinct)
 * are the accounts; each list's rows are the child table's rows whose join columns equal the parent
 * row's, filtered, ordered and made distinct as the mapping declares. Rows are indexed once per
 * list, so an account costs its own rows, not the extract's.
 */
export class AccountBuilder {
  private readonly indexes = new Map<ListNode, Map<string, Row[]>>();

  constructor(
    private readonly mapping: Mapping,
    /** The rows per table, already made distinct by key (mapping/store.ts does it table-wide). */
    private readonly rows: Map<string, Row[]>,
  ) {}

  private table(name: string): TableSpec {
    const t = this.mapping.tables.get(name);
    if (!t) throw new Error(`no table ${name}`);
    return t;
  }

  /** The account rows: the mapping's account table, its `where`, `order`, `distinct`. */
  accountRows(): Row[] {
    return this.select(this.mapping.account, this.rows.get(this.mapping.account.table) ?? []);
  }


  accountKey(row: Row): string {
    return (this.table(this.mapping.account.table).key ?? []).map((k) => (row.values[k] ?? '').trim()).join('|');
  }

  build(row: Row): { account: Record<string, unknown>; trace: AccountTrace } {
    const trace: AccountTrace = { account: this.accountKey(row), issues: [], objects: [] };
    const scope: Scope = { row, table: this.table(this.mapping.account.table), parents: [] };
    if (row.error) trace.issues.push({ ...row.error, account: trace.account });
    const account = this.object(this.mapping.account, scope, -1, '', -1, trace);
    return { account, trace };
  }

  private object(node: ObjectNode, scope: Scope, parent: number, key: string, index: number, trace: AccountTrace): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const self = trace.objects.push({ row: scope.row, node, parent, key, index }) - 1;
    for (const f of planOf(node, scope.table)) {
      const rule = f.rule;
      if (rule.kind === 'list') {
        const rows = this.children(rule.node, scope);
        if (rows.length === 0) {
          // An empty list of an optional field is no field, as the canonical form has it; a required
          // list (customers, supply_addresses, meter_points, meters) is written empty.
          if (f.keepEmpty) out[f.name] = [];
          continue;
        }
        const table = (f.table ??= this.table(rule.node.table));
        // The rows around the items: the same for every item of the list.
        const parents = [...scope.parents, { row: scope.row, table: scope.table }];
        const items: Record<string, unknown>[] = new Array(rows.length);
        for (let i = 0; i < rows.length; i++) {
          const child = rows[i];
          if (child.error) trace.issues.push({ ...child.error, account: trace.account, field: rule.node.path });
          items[i] = this.object(rule.node, { row: child, table, parents }, self, f.name, i, trace);
        }
        out[f.name] = items;
      } else if (rule.kind === 'object') {
        const value = this.object(rule.node, scope, self, f.name, -1, trace);
        // An object with nothing in it but empty lists is no object: its rows were not there.
        for (const k in value) {
          const v = value[k];
          if (!Array.isArray(v) || v.length > 0) {
            out[f.name] = value;
            break;
          }
        }
      } else {
        const v = evaluate(rule, scope, f.field, trace);
        if ('failed' in v) continue;
        // No value is no field: the Account's optional fields are left out, not sent as null —
        // unless a JSON column says null in so many words (a required field that may be null).
        if (v.value !== null && v.value !== undefined) out[f.name] = v.value;
        else if (f.jsonColumn && scope.row.values[f.jsonColumn]?.trim() === 'null') out[f.name] = null;
      }
    }
    return out;
  }

  private children(node: ListNode, scope: Scope): Row[] {
    let index = this.indexes.get(node);
    if (!index) {
      index = new Map();
      for (const row of this.rows.get(node.table) ?? []) {
        const key = joinKey(node.join, 0, row);
        const list = index.get(key);
        if (list) list.push(row);
        else index.set(key, [row]);
      }
      this.indexes.set(node, index);
    }
    return this.select(node, index.get(joinKey(node.join, 1, scope.row)) ?? []);
  }

  /** A list's rows: those its `where` keeps, in its `order` (then file and line), distinct. */
  private select(node: ListNode, rows: Row[]): Row[] {
    const table = this.table(node.table);
    const kept = node.where ? rows.filter((r) => holds(node.where!, r)) : rows.slice();
    // One row has no order to find and nothing to be distinct from.
    if (kept.length < 2) return kept;
    const sortKey = (r: Row) => node.order.map((c) => orderValue(table, c, r));
    const keyed = kept.map((r) => ({ r, k: sortKey(r) }));
    keyed.sort((a, b) => compareKeys(a.k, b.k) || (a.r.file < b.r.file ? -1 : a.r.file > b.r.file ? 1 : a.r.line - b.r.line));
    if (!node.distinct) return keyed.map((x) => x.r);
    const seen = new Set<string>();
    return keyed
      .map((x) => x.r)
      .filter((r) => {
        const k = node.distinct!.map((c) => (r.values[c] ?? '').trim()).join(SEP);
        if (seen.has(k)) return false;
        seen.add(k);
        return true;
      });
  }
}

/** A field of an object as the building reads it: what is worked out once per mapping, not per value. */
interface FieldPlan {
  name: string;
  rule: Rule;
  /** The field's mapping path (`supply_addresses.*.meter_points.*.mpxn`), as errors name it. */
  field: string;
  /** A list the Account requires: written empty when no row joins. */
  keepEmpty: boolean;
  /** The column of a column rule over a JSON column, where `null` in so many words is a null field. */
  jsonColumn: string | null;
  /** A list's table (found on first use). */
  table?: TableSpec;
}

/** A row's key on a list's join: its child columns (side 0) or its parent's (side 1), trimmed. */
function joinKey(join: [string, string][], side: 0 | 1, row: Row): string {
  if (join.length === 1) return (row.values[join[0][side]] ?? '').trim();
  return join.map((pair) => (row.values[pair[side]] ?? '').trim()).join(SEP);
}

const plans = new WeakMap<ObjectNode, FieldPlan[]>();

/** A node's plan; `table` is the table its rows come from (a node's is always the same one). */
function planOf(node: ObjectNode, table: TableSpec): FieldPlan[] {
  let plan = plans.get(node);
  if (plan) return plan;
  plan = [...node.fields].map(([name, rule]) => ({
    name,
    rule,
    field: node.path ? `${node.path}.${name}` : name,
    keepEmpty: rule.kind === 'list' && accountFields().get(rule.node.path.slice(0, -2))?.required === true,
    jsonColumn: rule.kind === 'column' && table.columns.get(rule.column)?.type === 'json' ? rule.column : null,
  }));
  plans.set(node, plan);
  return plan;
}

export function allRules(node: ObjectNode): ObjectNode['fields'] extends Map<string, infer R> ? R[] : never {
  const out: ReturnType<typeof allRules> = [];
  for (const rule of node.fields.values()) {
    out.push(rule);
    if (rule.kind === 'object') out.push(...allRules(rule.node));
  }
  return out;
}

/** Rows ordered by their converted values (a dd/mm/yyyy date sorts as a date), raw text else. */
function orderValue(table: TableSpec, column: string, row: Row): string | number {
  const col = table.columns.get(column);
  const raw = row.values[column] ?? '';
  if (!col) return raw;
  const c = convertValue(col, raw, row.values);
  if (!c.ok || c.value === null) return raw;
  if (col.type === 'decimal') return Number(c.value);
  return typeof c.value === 'number' ? c.value : String(c.value);
}

function compareKeys(a: (string | number)[], b: (string | number)[]): number {
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    return String(x) < String(y) ? -1 : 1;
  }
  return 0;
}
