import fs from 'node:fs';
import path from 'node:path';
import { fieldsUnder } from './accountFields';

/**
 * A book written as a legacy extract (`data-import generate --legacy-extract`), and the mapping
 * that maps it back: one CSV table per list of the Account whose items have fields (accountFields.ts,
 * `$ref`s followed: `supply_addresses.*.meter_points` is table `supply_addresses__meter_points`, a
 * ledger's transactions table `ledgers__current_statement_transactions`), a row per item with its
 * key `K`, its parent's key `P` and its place `I`; each value under it (through objects, not
 * through lists; a list of plain values is one value) a column of JSON text, an absent value an
 * empty cell. Mapped back, every account has the digest of the original:
 * the round trip proves the engine's joins, order, nesting and quarantine lose nothing.
 */
interface Node {
  /** Account path of the list's item ('' for the account). */
  path: string;
  table: string;
  /** Scalar (or whole-JSON) fields by relative dot path. */
  columns: string[];
  objects: string[];
  lists: Node[];
}

const tableName = (p: string) => (p === '' ? 'accounts' : p.replace(/\.\*$/, '').replace(/\.\*\.|\./g, '__'));

function plan(itemPath: string): Node {
  const node: Node = { path: itemPath, table: tableName(itemPath), columns: [], objects: [], lists: [] };
  const walk = (prefix: string) => {
    for (const { path: p, shape } of fieldsUnder(prefix)) {
      const rel = p.slice(itemPath === '' ? 0 : itemPath.length + 1);
      if (shape === 'list') node.lists.push(plan(`${p}.*`));
      else if (shape === 'object') {
        node.objects.push(rel);
        walk(`${p}.`);
      } else node.columns.push(rel);
    }
  };
  walk(itemPath === '' ? '' : `${itemPath}.`);
  return node;
}

const col = (rel: string) => rel.replace(/\./g, '__');
const cell = (v: string) => (/[",\n\r]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

function get(obj: unknown, rel: string): unknown {
  let v = obj;
  for (const part of rel.split('.')) v = v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>)[part] : undefined;
  return v;
}

/** Writes the accounts as an extract into `dir` (one CSV a list), and returns the number written. */
export function writeLegacyExtract(accounts: Iterable<Record<string, unknown>>, dir: string): number {
  const root = plan('');
  fs.mkdirSync(dir, { recursive: true });
  const files = new Map<string, number>();
  const open = (n: Node) => {
    const fd = fs.openSync(path.join(dir, `${n.table}.csv`), 'w');
    fs.writeSync(fd, `${['K', 'P', 'I', ...n.columns.map(col)].join(',')}\n`);
    files.set(n.table, fd);
    n.lists.forEach(open);
  };
  open(root);
  const write = (n: Node, item: unknown, key: string, parent: string, index: number) => {
    const values = n.columns.map((rel) => {
      const v = get(item, rel);
      return v === undefined ? '' : cell(JSON.stringify(v));
    });
    fs.writeSync(files.get(n.table)!, `${[cell(key), cell(parent), String(index), ...values].join(',')}\n`);
    for (const child of n.lists) {
      const rel = child.path.slice(n.path === '' ? 0 : n.path.length + 1, -2);
      const list = get(item, rel);
      if (Array.isArray(list)) list.forEach((c, i) => write(child, c, `${key}.${i}`, key, i));
    }
  };
  let count = 0;
  for (const account of accounts) {
    write(root, account, String(count), '', count);
    count++;
  }
  for (const fd of files.values()) fs.closeSync(fd);
  return count;
}

/** The mapping of such an extract back to accounts (examples/roundtrip/mapping.yaml is this text). */
export function legacyExtractMapping(): string {
  const root = plan('');
  const lines = ['# Written by mapping/legacyExtract.ts: maps an extract of `generate --legacy-extract` back to its book.', 'version: 1', 'tables:'];
  const tables = (n: Node) => {
    lines.push(`  ${n.table}:`, `    files: ${n.table}.csv`, '    key: K', '    columns:', '      K: string', '      P: string', '      I: integer', ...n.columns.map((c) => `      ${col(c)}: json`));
    n.lists.forEach(tables);
  };
  tables(root);
  const fields = (n: Node, depth: number) => {
    const pad = (d: number) => '  '.repeat(d);
    // Objects first written as nested `fields:`; a column's place is its relative path.
    const tree: Record<string, unknown> = {};
    for (const c of n.columns) setPath(tree, c, col(c));
    for (const child of n.lists) setPath(tree, child.path.slice(n.path === '' ? 0 : n.path.length + 1, -2), child);
    const emit = (t: Record<string, unknown>, d: number) => {
      for (const [k, v] of Object.entries(t)) {
        if (typeof v === 'string') lines.push(`${pad(d)}${k}: ${v}`);
        else if (isNode(v)) {
          lines.push(`${pad(d)}${k}:`, `${pad(d + 1)}table: ${v.table}`, `${pad(d + 1)}join: { P: K }`, `${pad(d + 1)}order: [I]`, `${pad(d + 1)}fields:`);
          fields(v, d + 2);
        } else {
          lines.push(`${pad(d)}${k}:`, `${pad(d + 1)}fields:`);
          emit(v as Record<string, unknown>, d + 2);
        }
      }
    };
    emit(tree, depth);
  };
  lines.push('account:', '  table: accounts', '  order: [I]', '  fields:');
  fields(root, 2);
  return `${lines.join('\n')}\n`;
}

const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && 'table' in v && 'lists' in v;

function setPath(tree: Record<string, unknown>, rel: string, value: unknown): void {
  const parts = rel.split('.');
  let t = tree;
  for (const part of parts.slice(0, -1)) t = (t[part] ??= {}) as Record<string, unknown>;
  t[parts[parts.length - 1]] = value;
}
