import fs from 'node:fs';
import path from 'node:path';
import { accountFields } from './accountFields';
import { loadTables } from './loadTables';
import { RuleLoader } from './loadRules';
import type { ListNode, Mapping, Rule } from './spec';
import { MappingError, Yaml } from './yamlNodes';

export { MappingError } from './yamlNodes';

/**
 * Loads and checks a mapping (docs/bulk-migration.md, "The mapping"): every Account field it
 * names exists and takes what its rule gives, every column it reads is declared on its table,
 * every join gives a child one parent, and every required Account field has a rule. All the
 * problems found are thrown together, each with its line.
 */
export function loadMapping(file: string): Mapping {
  if (!fs.existsSync(file)) throw new MappingError([{ line: 1, detail: 'the mapping file does not exist' }], file);
  return parseMapping(fs.readFileSync(file, 'utf8'), file, path.dirname(path.resolve(file)));
}

export function parseMapping(text: string, file: string, dir: string): Mapping {
  const y = new Yaml(text, file);
  if (y.problems.length > 0) throw new MappingError(y.problems, file);
  y.only(y.root, ['version', 'tables', 'account'], 'mapping');
  const version = y.value(y.get(y.root, 'version'));
  if (version !== 1) y.fail(y.get(y.root, 'version') ?? y.root, 'version: 1 is the only version of the mapping language');
  const tables = loadTables(y, y.get(y.root, 'tables'));
  const accountNode = y.get(y.root, 'account');
  if (!accountNode) {
    y.fail(y.root, 'account: the Account tree (table, fields) is required');
    throw new MappingError(y.problems, file);
  }
  const account = new RuleLoader(y, tables, dir).list(accountNode, '', []);
  const root = tables.get(account.table);
  if (root && !root.key) y.fail(y.get(accountNode, 'table'), `account: table ${account.table} needs a key (the legacy account key that names an account in reports, cohorts and buckets)`);
  requireFields(y, account);
  if (y.problems.length > 0) throw new MappingError(y.problems.sort((a, b) => a.line - b.line), file);
  return { dir, tables, account };
}

/** A required field of the Account (or of an item the mapping writes) with no rule is an error. */
function requireFields(y: Yaml, node: ListNode | { path: string; fields: Map<string, Rule>; line: number }): void {
  const prefix = node.path ? `${node.path}.` : '';
  for (const [fieldPath, field] of accountFields()) {
    if (!field.required || !fieldPath.startsWith(prefix)) continue;
    const name = fieldPath.slice(prefix.length);
    if (name.includes('.')) continue;
    if (!node.fields.has(name)) y.problems.push({ line: node.line, detail: `${prefix}${name}: required by the Account, and the mapping gives it no rule` });
  }
  for (const rule of node.fields.values()) {
    if (rule.kind === 'list' || rule.kind === 'object') requireFields(y, rule.node);
  }
}
