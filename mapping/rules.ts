import { checkValue, convertValue } from './convert';
import type { Row } from './extract';
import { MAP_CODES, type MapIssue, type Source } from './issues';
import type { Condition, ObjectNode, Rule, TableSpec } from './spec';

/** The row a rule reads and the rows of the lists around it (nearest last). */
export interface Scope {
  row: Row;
  table: TableSpec;
  parents: { row: Row; table: TableSpec }[];
}

/**
 * What building one account collects: its errors, and per object of the account (its attr) the row
 * and mapping node it was built from — enough to trace a validation error at any attr back to its
 * row, column and rule (mapping/run.ts), without an object per value kept for the errors few have.
 */
export interface AccountTrace {
  account: string;
  issues: MapIssue[];
  /**
   * Each object in the order built, with the object it sits in (its index here, -1 for the account)
   * and its key there (a field's name, a list item's index): its attr is made only when an error
   * asks for it (tracedObject), not a text and a map entry per object of every account.
   */
  objects: TracedObject[];
  /** attr → object, made on the first tracedObject call. */
  byAttr?: Map<string, TracedObject>;
}

export interface TracedObject {
  row: Row;
  node: ObjectNode;
  /** The object it sits in (an index of `objects`), -1 for the account. */
  parent: number;
  /** The field of the parent it is at, and its index when it is a list's item (else -1). */
  key: string;
  index: number;
}

/** The object of an account at an attr (`supply_addresses.0.meter_points`), if one was built there. */
export function tracedObject(trace: AccountTrace, attr: string): TracedObject | undefined {
  if (!trace.byAttr) {
    const attrs: string[] = [];
    trace.byAttr = new Map();
    for (const o of trace.objects) {
      const rel = o.index < 0 ? o.key : `${o.key}.${o.index}`;
      const at = o.parent < 0 ? '' : attrs[o.parent] === '' ? rel : `${attrs[o.parent]}.${rel}`;
      attrs.push(at);
      trace.byAttr.set(at, o);
    }
  }
  return trace.byAttr.get(attr);
}

/** The column a scalar rule reads (its first, for an expression), if any. */
export function ruleColumn(rule: Rule | undefined): string | undefined {
  if (!rule) return undefined;
  switch (rule.kind) {
    case 'column':
    case 'parent':
    case 'map':
    case 'split':
      return rule.column;
    case 'concat':
      return rule.parts.map(ruleColumn).find((c) => c !== undefined);
    case 'when':
      return 'column' in rule.condition ? rule.condition.column : ruleColumn(rule.then);
    default:
      return undefined;
  }
}

/** A value; `failed` when an error was recorded instead. */
export type Evaluated = { value: unknown } | { failed: true };

export function source(row: Row, column: string | undefined, ruleLine: number, field: string): Source {
  return { file: row.file, line: row.line, column, value: column === undefined ? undefined : row.values[column], ruleLine, field };
}

function issue(trace: AccountTrace, code: string, src: Source, detail: string): Evaluated {
  trace.issues.push({ code, account: trace.account, file: src.file, line: src.line, column: src.column, value: src.value, ruleLine: src.ruleLine, field: src.field, detail });
  return { failed: true };
}

/** A column's value converted as declared and checked by its own check. */
export function cell(row: Row, table: TableSpec, column: string, ruleLine: number, field: string, trace: AccountTrace): Evaluated {
  // The source is made only for an error: a value that converts needs none (mapping/run.ts traces
  // a validation error from the account's objects), and an object per value is most of a run's garbage.
  const col = table.columns.get(column);
  if (!col) return issue(trace, MAP_CODES.columnMissing, source(row, column, ruleLine, field), `table ${table.name} has no column ${column}`);
  const raw = row.values[column] ?? '';
  const converted = convertValue(col, raw, row.values);
  if (!converted.ok) return issue(trace, MAP_CODES.unconvertible, source(row, column, ruleLine, field), `${table.name}.${column}: ${converted.detail}`);
  const failed = checkValue(col, raw, converted.value);
  if (failed) return issue(trace, MAP_CODES.checkFailed, source(row, column, ruleLine, field), `${table.name}.${column}: check failed: ${failed}`);
  return { value: converted.value };
}

export function holds(c: Condition, row: Row): boolean {
  switch (c.op) {
    case 'all':
      return c.of.every((x) => holds(x, row));
    case 'any':
      return c.of.some((x) => holds(x, row));
    case 'empty':
      return (row.values[c.column] ?? '').trim() === '';
    case 'not_empty':
      return (row.values[c.column] ?? '').trim() !== '';
    case 'in':
      return c.values.includes((row.values[c.column] ?? '').trim());
    case 'not_in':
      return !c.values.includes((row.values[c.column] ?? '').trim());
  }
}

/** One scalar rule on a row (lists and objects are built by mapping/build.ts). */
export function evaluate(rule: Rule, scope: Scope, field: string, trace: AccountTrace): Evaluated {
  switch (rule.kind) {
    case 'const':
      return { value: rule.value };
    case 'column':
      return cell(scope.row, scope.table, rule.column, rule.line, field, trace);
    case 'parent': {
      const p = scope.parents[scope.parents.length - rule.up];
      return cell(p.row, p.table, rule.column, rule.line, field, trace);
    }
    case 'map': {
      const raw = (scope.row.values[rule.column] ?? '').trim();
      if (rule.table.has(raw)) return { value: rule.table.get(raw) };
      if (raw === '') return { value: null };
      if (rule.fallback === 'default') return { value: rule.default };
      if (rule.fallback === 'pass') return { value: raw };
      return issue(trace, MAP_CODES.unmapped, source(scope.row, rule.column, rule.line, field), `${scope.table.name}.${rule.column}: code "${raw}" is not in the conversion table (fallback: fail)`);
    }
    case 'concat': {
      const parts: string[] = [];
      for (const part of rule.parts) {
        const v = evaluate(part, scope, field, trace);
        if ('failed' in v) return v;
        const text = v.value === null || v.value === undefined ? '' : String(v.value);
        if (text !== '' || !rule.skipEmpty) parts.push(text);
      }
      return { value: parts.length === 0 ? null : parts.join(rule.separator) };
    }
    case 'split': {
      const raw = (scope.row.values[rule.column] ?? '').trim();
      // A line break inside a quoted field is CRLF in a Windows extract: "\n" splits either.
      const pieces = raw === '' ? [] : raw.split(rule.separator === '\n' ? /\r?\n/ : rule.separator).filter((p) => p !== '');
      const value = rule.part === 'rest' ? pieces.slice(1).join(rule.separator) : pieces[rule.part] ?? '';
      return { value: value === '' ? null : value };
    }
    case 'when':
      return evaluate(holds(rule.condition, scope.row) ? rule.then : rule.else, scope, field, trace);
    case 'object':
    case 'list':
      throw new Error('lists and objects are built by mapping/build.ts');
  }
}
