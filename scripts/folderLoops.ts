/**
 * `npm run lint`, second half: no two top-level folders import each other, directly or round a
 * longer loop (docs/architecture.md, "Held true by lint"). ESLint sees one file at a time and
 * cannot tell a loop of folders; this reads every import of the product's .ts files with the
 * TypeScript parser and looks for a loop in the graph of folders.
 *
 * Every import counts, value or type, `import`/`export … from`, `import()` and `require()`, with
 * one exception the layer table makes: a workflow imports its activities (`activities/`) and the
 * features' stores as types only, erased by the compiler, while the feature starts the workflow by
 * function reference. Those type-only imports out of `workflows/` are not edges.
 *
 * Usage: tsx scripts/folderLoops.ts [root] — prints each loop with one import per step and exits 1,
 * or prints the number of folders and edges checked and exits 0.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** Not product code: tests, benchmarks and examples may import anything and are not checked. */
const NOT_PRODUCT = new Set(['test', 'bench', 'examples', 'node_modules', 'dist', 'data', 'docs']);
/** Type-only imports out of these folders are not edges (see above). */
const TYPE_ONLY_EXEMPT = new Set(['workflows']);

export interface Edge {
  from: string;
  to: string;
  /** One import that makes the edge: `file -> target`. */
  example: string;
}

function tsFiles(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name.startsWith('.')) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) tsFiles(p, out);
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** The relative module specifiers of one file, each with whether it is erased at compile time. */
export function importsOf(fileName: string, text: string): { spec: string; typeOnly: boolean }[] {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const found: { spec: string; typeOnly: boolean }[] = [];
  const add = (node: ts.Node | undefined, typeOnly: boolean) => {
    if (node && ts.isStringLiteralLike(node) && node.text.startsWith('.')) found.push({ spec: node.text, typeOnly });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      const c = node.importClause;
      const named = c?.namedBindings && ts.isNamedImports(c.namedBindings) ? c.namedBindings.elements : undefined;
      // `import type …`, or `import { type A, type B }` with no default and nothing but types.
      const typeOnly = !!c && (c.isTypeOnly || (!c.name && !!named && named.length > 0 && named.every((e) => e.isTypeOnly)));
      add(node.moduleSpecifier, typeOnly);
    } else if (ts.isExportDeclaration(node)) {
      add(node.moduleSpecifier, node.isTypeOnly);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node.moduleReference.expression, node.isTypeOnly);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node.argument.literal, true);
    } else if (ts.isCallExpression(node) && node.arguments.length > 0) {
      const callee = node.expression;
      const isImport = callee.kind === ts.SyntaxKind.ImportKeyword;
      const isRequire = ts.isIdentifier(callee) && callee.text === 'require';
      const isResolve = ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression) && callee.expression.text === 'require' && callee.name.text === 'resolve';
      if (isImport || isRequire || isResolve) add(node.arguments[0], false);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/** The edges between top-level folders of the product under `root`. */
export function folderEdges(root: string): Edge[] {
  const folders = fs
    .readdirSync(root, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith('.') && !NOT_PRODUCT.has(e.name))
    .map((e) => e.name);
  const edges = new Map<string, Edge>();
  for (const folder of folders) {
    for (const file of tsFiles(path.join(root, folder))) {
      for (const { spec, typeOnly } of importsOf(file, fs.readFileSync(file, 'utf8'))) {
        if (typeOnly && TYPE_ONLY_EXEMPT.has(folder)) continue;
        const target = path.relative(root, path.resolve(path.dirname(file), spec));
        const to = target.split(path.sep)[0];
        if (to === folder || to.startsWith('..') || !to) continue;
        const key = `${folder}>${to}`;
        if (!edges.has(key)) edges.set(key, { from: folder, to, example: `${path.relative(root, file)} -> ${target}` });
      }
    }
  }
  return [...edges.values()];
}

/** A set of folders that all reach each other, and one loop through its first folder. */
export interface Loop {
  folders: string[];
  loop: Edge[];
}

/** Every set of folders that import each other (strongly connected components of more than one), each with one loop. */
export function folderLoops(edges: Edge[]): Loop[] {
  const out = new Map<string, Edge[]>();
  for (const e of edges) out.set(e.from, [...(out.get(e.from) ?? []), e]);
  const nodes = [...new Set(edges.flatMap((e) => [e.from, e.to]))];
  // Tarjan's algorithm: components in which every folder reaches every other.
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const strong = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const e of out.get(v) ?? []) {
      if (!idx.has(e.to)) {
        strong(e.to);
        low.set(v, Math.min(low.get(v)!, low.get(e.to)!));
      } else if (onStack.has(e.to)) low.set(v, Math.min(low.get(v)!, idx.get(e.to)!));
    }
    if (low.get(v) === idx.get(v)) {
      const c: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        c.push(w);
      } while (w !== v);
      if (c.length > 1) components.push(c);
    }
  };
  for (const n of nodes) if (!idx.has(n)) strong(n);
  // One loop per component, found by a walk inside it from its first folder back to it.
  return components.map((c) => {
    const inside = new Set(c);
    const start = c.sort()[0];
    const path: Edge[] = [];
    const seen = new Set<string>();
    const walk = (v: string): boolean => {
      for (const e of out.get(v) ?? []) {
        if (!inside.has(e.to)) continue;
        if (e.to === start) return path.push(e) > 0;
        if (seen.has(e.to)) continue;
        seen.add(e.to);
        path.push(e);
        if (walk(e.to)) return true;
        path.pop();
      }
      return false;
    };
    walk(start);
    return { folders: c, loop: path };
  });
}

if (require.main === module) {
  const root = path.resolve(process.argv[2] ?? path.join(__dirname, '..'));
  const edges = folderEdges(root);
  const loops = folderLoops(edges);
  if (loops.length > 0) {
    for (const { folders, loop } of loops) {
      process.stderr.write(`folders importing each other: ${folders.join(', ')}; one loop: ${[...loop.map((e) => e.from), loop[0].from].join(' -> ')}\n`);
      for (const e of loop) process.stderr.write(`  ${e.from} -> ${e.to}: ${e.example}\n`);
    }
    process.stderr.write('No two folders may import each other (docs/architecture.md, "Layers"): move what both need below them, or pass it in.\n');
    process.exit(1);
  }
  const folders = new Set(edges.flatMap((e) => [e.from, e.to]));
  process.stdout.write(`folder loops: none (${folders.size} folders, ${edges.length} folder imports)\n`);
}
