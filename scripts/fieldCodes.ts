/**
 * Derives account/fieldCodes.json: the codes the domain and reference rules can raise at each path
 * of the Account (`*` for a list's item), for `data-import map init`'s skeleton (account/fieldCodes.ts
 * adds the shape check's, from the schema). Read with the TypeScript compiler from the rules' own
 * source, account/rules/*.ts and account/validator.ts: every call of `IssueList.add(code, attr)`
 * (the checker says which `add` it is), its code and its attr followed back to the Account's paths
 * (scripts/attrPaths.ts); and periods.ts END_RULES, the table its one call with a code out of a
 * table raises. An attr that names no path of the Account's schema is dropped; a call none of whose
 * attrs does is listed as unplaced. Run after adding or changing a rule:
 *
 *   npm run facts:field-codes
 *
 * test/unit/account/fieldCodes.test.ts derives it again and fails while the committed file differs.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { NON_FIELD_ERRORS } from '../account/issues';
import { END_RULES } from '../account/rules/periods';
import { schemaCodes } from '../account/schemaCodes';
import { AttrPaths } from './attrPaths';

const ROOT = path.join(__dirname, '..');
export const FIELD_CODES = path.join(ROOT, 'account', 'fieldCodes.json');
export const REFRESH = 'npm run facts:field-codes';
const SOURCE = 'The codes account/rules/*.ts and account/validator.ts raise at each Account path, read from their source by scripts/fieldCodes.ts';

export interface Unplaced {
  code: string;
  file: string;
  attr: string;
}

export interface FieldCodesFile {
  source: string;
  unplaced: Unplaced[];
  codes: Record<string, string[]>;
}

/** The rules' source files: the domain and reference rules, and the validator's own checks. */
function ruleFiles(): string[] {
  const rules = path.join(ROOT, 'account', 'rules');
  return [
    ...fs
      .readdirSync(rules)
      .filter((f) => f.endsWith('.ts'))
      .sort()
      .map((f) => path.join(rules, f)),
    path.join(ROOT, 'account', 'validator.ts'),
  ];
}

/** account/fieldCodes.json's text, derived from the rules as they are now. */
export function deriveFieldCodes(): { text: string; file: FieldCodesFile; calls: number } {
  const files = ruleFiles();
  const { config } = ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), (f) => ts.sys.readFile(f));
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, ROOT);
  const program = ts.createProgram(files, { ...options, noEmit: true, incremental: false });
  const checker = program.getTypeChecker();
  const sources = files.map((f) => program.getSourceFile(f)!);
  const attrs = new AttrPaths(program, sources);
  const accountPaths = new Set(schemaCodes().keys());

  const codes = new Map<string, Set<string>>();
  const add = (p: string, code: string) => {
    let set = codes.get(p);
    if (!set) codes.set(p, (set = new Set()));
    set.add(code);
  };
  for (const rule of END_RULES) add(`${rule.pattern}.${rule.to}`, rule.code);

  const unplaced: Unplaced[] = [];
  let calls = 0;
  for (const source of sources) {
    const file = path.basename(source.fileName, '.ts');
    const visit = (node: ts.Node): void => {
      ts.forEachChild(node, visit);
      if (!ts.isCallExpression(node) || !isIssueListAdd(node, checker)) return;
      calls++;
      const [codeArg, attrArg] = node.arguments;
      const raised = attrs.strings(codeArg);
      // periods.ts raises END_RULES' codes, each at its own end field: placed from the table above.
      if (raised === null && file === 'periods' && enclosingFunction(node) === 'visit') return;
      const at = (attrs.strings(attrArg) ?? []).map(anyItem);
      // An error about the payload as a whole is no field's.
      if (at.length > 0 && at.every((a) => a === NON_FIELD_ERRORS)) return;
      const placed = at.filter((a) => accountPaths.has(a));
      if (raised === null || placed.length === 0) {
        unplaced.push({ code: raised?.join(' | ') ?? codeArg.getText(), file, attr: attrArg.getText() });
        return;
      }
      for (const code of raised) for (const p of placed) add(p, code);
    };
    visit(source);
  }

  const sorted = Object.fromEntries([...codes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([p, s]) => [p, [...s].sort()]));
  const file: FieldCodesFile = { source: SOURCE, unplaced, codes: sorted };
  // One line a path: a code added to a field is a one-line change.
  const lines = Object.entries(sorted).map(([p, c]) => `  ${JSON.stringify(p)}: ${JSON.stringify(c)}`);
  const text = `{\n "source": ${JSON.stringify(SOURCE)},\n "unplaced": ${JSON.stringify(unplaced)},\n "codes": {\n${lines.join(',\n')}\n }\n}\n`;
  return { text, file, calls };
}

/** Whether a call is `add` of account/issues.ts IssueList (through `ctx.errors`, a `Pick<IssueList, 'add'>`…), as the checker resolves it. */
function isIssueListAdd(call: ts.CallExpression, checker: ts.TypeChecker): boolean {
  if (!ts.isPropertyAccessExpression(call.expression) || call.expression.name.text !== 'add') return false;
  const decl = checker.getResolvedSignature(call)?.declaration;
  return decl !== undefined && ts.isMethodDeclaration(decl) && ts.isClassDeclaration(decl.parent) && decl.parent.name?.text === 'IssueList';
}

function enclosingFunction(node: ts.Node): string | undefined {
  for (let n: ts.Node | undefined = node.parent; n; n = n.parent) if (ts.isFunctionDeclaration(n)) return n.name?.text;
  return undefined;
}

/** A literal index (`transfer_readings.1`) is any item. */
function anyItem(attr: string): string {
  return attr
    .split('.')
    .map((p) => (/^\d+$/.test(p) ? '*' : p))
    .join('.');
}

function main(): void {
  const { text, file, calls } = deriveFieldCodes();
  const before = fs.existsSync(FIELD_CODES) ? fs.readFileSync(FIELD_CODES, 'utf8') : '';
  fs.writeFileSync(FIELD_CODES, text);
  const placed = Object.values(file.codes).reduce((n, c) => n + c.length, 0);
  process.stdout.write(
    `${path.relative(process.cwd(), FIELD_CODES)}: ${Object.keys(file.codes).length} paths, ${placed} codes placed from ${calls} calls of IssueList.add and ${END_RULES.length} END_RULES (${before === text ? 'unchanged' : 'changed'})\n` +
      `unplaced (an attr that names no path of the Account): ${file.unplaced.length}${file.unplaced.map((u) => `\n  ${u.code} in ${u.file}.ts at ${u.attr}`).join('')}\n`,
  );
}

if (require.main === module) main();
