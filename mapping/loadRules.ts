import fs from 'node:fs';
import path from 'node:path';
import type { Node } from 'yaml';
import { accountFields, type FieldKind } from './accountFields';
import { parseCsvText } from './csv';
import type { Condition, ListNode, ObjectNode, Rule, TableSpec } from './spec';
import type { Yaml } from './yamlNodes';

const LIST_OPTIONS = ['table', 'join', 'order', 'distinct', 'where', 'fields'];
const RULE_WORDS = ['const', 'column', 'parent', 'map', 'concat', 'split', 'when', 'fields', 'table'];

/** The rules of the Account tree, checked against the Account and the tables as they are read. */
export class RuleLoader {
  constructor(
    private readonly y: Yaml,
    private readonly tables: Map<string, TableSpec>,
    private readonly dir: string,
  ) {}

  /** A list node: `table`, `join` (child column: parent column), `order`, `distinct`, `where`, `fields`. */
  list(node: Node, fieldPath: string, parents: ListNode[]): ListNode {
    const y = this.y;
    y.only(node, LIST_OPTIONS, fieldPath || 'account');
    const tableName = y.str(y.get(node, 'table'), 'table') ?? '';
    const table = this.tables.get(tableName);
    if (!table) y.fail(y.get(node, 'table') ?? node, `${fieldPath || 'account'}: table "${tableName}" is not declared under tables`);
    const itemPath = fieldPath ? `${fieldPath}.*` : '';
    const list: ListNode = { path: itemPath, table: tableName, join: [], order: [], fields: new Map(), line: y.line(node) };
    const parent = parents[parents.length - 1];
    const joinNode = y.get(node, 'join');
    if (parent) {
      for (const [child, p, line] of y.entries(joinNode, `${fieldPath}: join`)) {
        const parentColumn = y.str(p, 'join') ?? '';
        this.needColumn(tableName, child, line, fieldPath);
        this.needColumn(parent.table, parentColumn, line, fieldPath);
        list.join.push([child, parentColumn]);
      }
      // A child belongs to one parent only when the parent side of the join is unique among the
      // parent's items: the parent table's key, or the columns the parent's items are distinct on.
      const unique = parent.distinct ?? this.tables.get(parent.table)?.key;
      const joined = list.join.map(([, p]) => p);
      if (list.join.length > 0 && !(unique && unique.every((u) => joined.includes(u)))) {
        y.fail(joinNode, `${fieldPath}: the join on ${joined.join(', ') || 'nothing'} could make one ${tableName} row belong to two ${parent.table} items: join on the parent's key (${unique?.join(', ') ?? 'none declared: give table ' + parent.table + ' a key or its list a distinct'})`);
      }
    } else if (joinNode) y.fail(joinNode, 'account: the account list has no parent to join');
    list.order = y.strings(y.get(node, 'order'), 'order') ?? [];
    list.distinct = y.strings(y.get(node, 'distinct'), 'distinct');
    for (const c of [...list.order, ...(list.distinct ?? [])]) this.needColumn(tableName, c, y.line(node), fieldPath);
    const where = y.get(node, 'where');
    if (where) list.where = this.condition(where, tableName, fieldPath);
    this.fields(y.get(node, 'fields'), list, [...parents, list], tableName);
    return list;
  }

  private fields(node: Node | undefined, obj: ObjectNode, parents: ListNode[], table: string): void {
    for (const [name, r, line] of this.y.entries(node, `${obj.path || 'account'}: fields`)) {
      const fieldPath = obj.path ? `${obj.path}.${name}` : name;
      const field = accountFields().get(fieldPath);
      if (!field) {
        this.y.problems.push({ line, detail: `${fieldPath}: the Account has no such field` });
        continue;
      }
      const rule = this.rule(r, fieldPath, parents, table, line);
      const kind: FieldKind = rule.kind === 'list' ? 'list' : rule.kind === 'object' ? 'object' : 'value';
      // A constant or a JSON column may give a whole object or list as one value.
      const whole = rule.kind === 'const' || (rule.kind === 'column' && this.tables.get(table)?.columns.get(rule.column)?.type === 'json');
      if (!field.kinds.has(kind) && !(kind === 'value' && whole)) {
        this.y.problems.push({ line, detail: `${fieldPath}: the Account holds ${[...field.kinds].join(' or ')} here, the rule gives a ${kind}` });
      }
      obj.fields.set(name, rule);
    }
  }

  private rule(r: Node, fieldPath: string, parents: ListNode[], table: string, line: number): Rule {
    const y = this.y;
    // A bare word is a column of the row's table: the commonest rule reads shortest.
    if (y.isScalar(r)) {
      const column = y.str(r, fieldPath) ?? '';
      this.needColumn(table, column, line, fieldPath);
      return { kind: 'column', column, line };
    }
    const has = (k: string) => y.get(r, k) !== undefined;
    if (has('table')) return { kind: 'list', node: this.list(r, fieldPath, parents), line };
    if (has('fields')) {
      y.only(r, ['fields'], fieldPath);
      const node: ObjectNode = { path: fieldPath, fields: new Map(), line };
      this.fields(y.get(r, 'fields'), node, parents, table);
      return { kind: 'object', node, line };
    }
    if (has('const')) return { kind: 'const', value: y.value(y.get(r, 'const')), line };
    if (has('column')) {
      const column = y.str(y.get(r, 'column'), 'column') ?? '';
      this.needColumn(table, column, line, fieldPath);
      return { kind: 'column', column, line };
    }
    if (has('parent')) return this.parentRule(r, fieldPath, parents, line);
    if (has('map')) return this.mapRule(r, fieldPath, table, line);
    if (has('concat')) {
      const parts = y.isSeq(y.get(r, 'concat')) ? (y.get(r, 'concat') as Node & { items: Node[] }).items.map((p) => this.rule(p, fieldPath, parents, table, y.line(p))) : [];
      if (parts.length === 0) y.fail(r, `${fieldPath}: concat takes a list of columns or rules`);
      return { kind: 'concat', parts, separator: y.str(y.get(r, 'separator'), 'separator') ?? '', skipEmpty: y.value(y.get(r, 'skip_empty')) !== false, line };
    }
    if (has('split')) {
      const column = y.str(y.get(r, 'split'), 'split') ?? '';
      this.needColumn(table, column, line, fieldPath);
      const partText = y.str(y.get(r, 'part'), 'part') ?? '0';
      return { kind: 'split', column, separator: y.str(y.get(r, 'separator'), 'separator') ?? ' ', part: partText === 'rest' ? 'rest' : Number(partText), line };
    }
    if (has('when')) {
      const then = y.get(r, 'then');
      const otherwise = y.get(r, 'else');
      return {
        kind: 'when',
        condition: this.condition(y.get(r, 'when') as Node, table, fieldPath),
        then: then ? this.rule(then, fieldPath, parents, table, y.line(then)) : { kind: 'const', value: null, line },
        else: otherwise ? this.rule(otherwise, fieldPath, parents, table, y.line(otherwise)) : { kind: 'const', value: null, line },
        line,
      };
    }
    y.problems.push({ line, detail: `${fieldPath}: a rule is a column name or a map with one of ${RULE_WORDS.join(', ')}` });
    return { kind: 'const', value: null, line };
  }

  private parentRule(r: Node, fieldPath: string, parents: ListNode[], line: number): Rule {
    const column = this.y.str(this.y.get(r, 'parent'), 'parent') ?? '';
    // The nearest enclosing list whose table has the column (up = 1 is the direct parent).
    for (let up = 1; up < parents.length; up++) {
      if (this.tables.get(parents[parents.length - 1 - up].table)?.columns.has(column)) return { kind: 'parent', column, up, line };
    }
    this.y.problems.push({ line, detail: `${fieldPath}: no parent table has a column ${column}` });
    return { kind: 'const', value: null, line };
  }

  private mapRule(r: Node, fieldPath: string, table: string, line: number): Rule {
    const y = this.y;
    const column = y.str(y.get(r, 'map'), 'map') ?? '';
    this.needColumn(table, column, line, fieldPath);
    const values = new Map<string, unknown>();
    const inline = y.get(r, 'values');
    const file = y.str(y.get(r, 'file'), 'file');
    if (inline) for (const [code, v] of y.entries(inline, `${fieldPath}: values`)) values.set(code, y.value(v));
    else if (!file) y.fail(r, `${fieldPath}: a conversion table needs values (inline) or file (a CSV of legacy,value)`);
    if (file) {
      const where = path.resolve(this.dir, file);
      if (!fs.existsSync(where)) y.fail(y.get(r, 'file'), `${fieldPath}: conversion table ${file} does not exist`);
      else {
        const parsed = parseCsvText(fs.readFileSync(where, 'utf8'), ',', '"');
        const [head, ...rows] = parsed.records;
        if (parsed.error || !head || head.fields.length < 2) y.fail(y.get(r, 'file'), `${fieldPath}: conversion table ${file} must be a CSV of legacy,value with a header${parsed.error ? ` (${parsed.error.detail} at line ${parsed.error.line})` : ''}`);
        else for (const row of rows) values.set(row.fields[0], row.fields[1]);
      }
    }
    const fallback = y.str(y.get(r, 'fallback'), 'fallback') ?? 'fail';
    if (!['fail', 'default', 'pass'].includes(fallback)) y.fail(y.get(r, 'fallback'), `${fieldPath}: fallback is fail, default or pass`);
    if (fallback === 'default' && y.get(r, 'default') === undefined) y.fail(r, `${fieldPath}: fallback default needs a default value`);
    return { kind: 'map', column, table: values, fallback: fallback as 'fail', default: y.value(y.get(r, 'default')), unconfirmed: y.value(y.get(r, 'unconfirmed')) === true, line };
  }

  condition(node: Node, table: string, fieldPath: string): Condition {
    const y = this.y;
    const line = y.line(node);
    for (const op of ['all', 'any'] as const) {
      const list = y.get(node, op);
      if (list) return { op, of: y.isSeq(list) ? list.items.map((c) => this.condition(c, table, fieldPath)) : [], line };
    }
    const column = y.str(y.get(node, 'column'), 'column') ?? '';
    this.needColumn(table, column, line, fieldPath);
    for (const op of ['in', 'not_in'] as const) {
      const values = y.strings(y.get(node, op), op);
      if (values) return { op, column, values, line };
    }
    const empty = y.get(node, 'empty');
    if (empty) return { op: y.value(empty) === false ? 'not_empty' : 'empty', column, line };
    y.fail(node, `${fieldPath || 'account'}: a condition is {column, in | not_in | empty} or {all | any: [conditions]}`);
    return { op: 'all', of: [], line };
  }

  private needColumn(table: string, column: string, line: number, fieldPath: string): void {
    const t = this.tables.get(table);
    if (t && !t.columns.has(column)) this.y.problems.push({ line, detail: `${fieldPath || 'account'}: table ${table} has no column ${column} (declare it under tables.${table}.columns)` });
  }
}
