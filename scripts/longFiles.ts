/**
 * `npm run lint`, third part: no production file over MAX_LINES lines without a one-line reason at
 * its top (docs/architecture.md, "Held true by lint"). A long file is allowed when its first lines
 * (a shebang may come first) carry the marker
 *
 *     // long-file: <why this file is better whole>
 *
 * Production files are the project's .ts files outside tests, benchmarks, examples and build output.
 *
 * Usage: tsx scripts/longFiles.ts [root] — prints each long file without a reason and exits 1, or
 * prints how many long files carry their reason and exits 0.
 */
import fs from 'node:fs';
import path from 'node:path';

export const MAX_LINES = 300;
/** The marker, with a reason of at least a few words after it. */
export const MARKER = /^\/\/ long-file: \S.{8,}/;
/** How many of a file's first lines are searched for the marker. */
const HEAD_LINES = 3;
/** Not production code. */
const NOT_PRODUCT = new Set(['test', 'bench', 'examples', 'node_modules', 'dist', 'data', 'docs']);

function tsFiles(root: string, dir = root, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name.startsWith('.') || (dir === root && NOT_PRODUCT.has(e.name))) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) tsFiles(root, p, out);
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** Lines as `wc -l` counts them (newlines). */
export function lineCount(text: string): number {
  return (text.match(/\n/g) ?? []).length;
}

/** The marker's reason, or null when the head of the file has none. */
export function reasonOf(text: string): string | null {
  const head = text.split('\n', HEAD_LINES + 1).filter((l) => !l.startsWith('#!'));
  const line = head.slice(0, HEAD_LINES).find((l) => MARKER.test(l));
  return line ? line.replace(/^\/\/ long-file: /, '') : null;
}

export interface LongFile {
  file: string;
  lines: number;
  reason: string | null;
}

/** Every production file over MAX_LINES lines, with its reason or null. */
export function longFiles(root: string): LongFile[] {
  const out: LongFile[] = [];
  for (const f of tsFiles(root).sort()) {
    const text = fs.readFileSync(f, 'utf8');
    const lines = lineCount(text);
    if (lines > MAX_LINES) out.push({ file: path.relative(root, f), lines, reason: reasonOf(text) });
  }
  return out;
}

if (require.main === module) {
  const root = path.resolve(process.argv[2] ?? path.join(__dirname, '..'));
  const long = longFiles(root);
  const bare = long.filter((l) => l.reason === null);
  if (bare.length > 0) {
    for (const l of bare) process.stderr.write(`${l.file}: ${l.lines} lines, no reason at its top\n`);
    process.stderr.write(`A production file over ${MAX_LINES} lines splits where it is natural, or says in one line at its top why it is better whole: // long-file: <reason>\n`);
    process.exit(1);
  }
  process.stdout.write(`long files: ${long.length} over ${MAX_LINES} lines, each with its reason\n`);
}
