import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The source files a hash of "what decides this behaviour" covers (account/fingerprint.ts's
 * validation rules version, db/stores/accountDigests.ts's digest form): the files given, every file
 * of the folders given (their code and data: `.ts`, `.js`, `.json`), and every file these import
 * by a relative path, transitively, whatever folder it is in (a JSON description, a storage
 * derivation one folder over). Sorted, so that the same tree gives the same list. Works on the
 * sources (tsx, jest) and on the build (dist/, where the imports are `require`s of `.js` files).
 */
export function sourceClosure(entries: readonly string[]): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    if (file.endsWith('.json')) return;
    const text = fs.readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?:from\s+|require\(\s*|import\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g)) {
      const found = resolveImport(path.dirname(file), m[1]!);
      if (found) visit(found);
    }
  };
  for (const entry of entries) {
    if (fs.statSync(entry).isDirectory()) for (const file of filesUnder(entry)) visit(file);
    else visit(entry);
  }
  return [...seen].sort();
}

const CODE = /\.(ts|js|json)$/;

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of fs.readdirSync(dir).sort()) {
    const file = path.join(dir, name);
    if (fs.statSync(file).isDirectory()) out.push(...filesUnder(file));
    else if (CODE.test(name) && !name.endsWith('.d.ts') && !name.endsWith('.map')) out.push(file);
  }
  return out;
}

function resolveImport(from: string, spec: string): string | undefined {
  const base = path.resolve(from, spec);
  for (const candidate of [base, `${base}.ts`, `${base}.js`, `${base}.json`, path.join(base, 'index.ts'), path.join(base, 'index.js')]) {
    if (CODE.test(candidate) && fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

/**
 * A hash of files, each by its path relative to `root` and its content (`read`: the file system, or
 * a test's altered copy): a renamed, added, removed or changed file gives another hash.
 */
export function hashFiles(root: string, files: readonly string[], read: (file: string) => Buffer | string = (f) => fs.readFileSync(f)): string {
  const hash = crypto.createHash('sha256');
  for (const file of files) hash.update(path.relative(root, file)).update('\0').update(read(file)).update('\0');
  return hash.digest('base64url');
}
