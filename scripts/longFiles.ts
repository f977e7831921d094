/**
 * `npm run lint`, third part: no production file over MAX_LINES lines without a one-line reason at
 * its top, and none grown past the length it was given (docs/architecture.md, "Held true by lint").
 * A long file is allowed when its first lines (a shebang may come first) carry the marker
 *
 *     // long-file (412 lines): <why this file is better whole>
 *
 * (`#` instead of `//` in a shell script). The number is the length the file was granted at: a file
 * grown past it fails, so growth is a decision someone writes down (split it, or raise the number in
 * the same change and say why in its message), not a drift. A marker without its length fails too.
 *
 * Production files are the project's .ts, .js and .sh files outside tests, benchmarks, examples,
 * docs and build output.
 *
 * Usage: tsx scripts/longFiles.ts [root] — prints each long file without a valid marker or past its
 * length and exits 1, or prints how many long files carry their reason and exits 0.
 */
import fs from 'node:fs';
import path from 'node:path';

export const MAX_LINES = 300;
/** The marker: a comment leader, the granted length, a reason of at least a few words. */
export const MARKER = /^(?:\/\/|#) long-file \((\d+) lines\): (\S.{8,})$/;
/** The older marker, without a length: named in the error so its owner knows what to add. */
const OLD_MARKER = /^(?:\/\/|#) long-file: /;
/** How many of a file's first lines are searched for the marker. */
const HEAD_LINES = 3;
/** Not production code. */
const NOT_PRODUCT = new Set(['test', 'bench', 'examples', 'node_modules', 'dist', 'data', 'docs']);
/** The kinds of file checked. */
const CHECKED = /(?<!\.d)\.(ts|js|sh)$/;

function productFiles(root: string, dir = root, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name.startsWith('.') || (dir === root && NOT_PRODUCT.has(e.name))) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) productFiles(root, p, out);
    else if (CHECKED.test(e.name)) out.push(p);
  }
  return out;
}

/** Lines as `wc -l` counts them (newlines). */
export function lineCount(text: string): number {
  return (text.match(/\n/g) ?? []).length;
}

function headLines(text: string): string[] {
  return text
    .split('\n', HEAD_LINES + 1)
    .filter((l) => !l.startsWith('#!'))
    .slice(0, HEAD_LINES);
}

export interface Marker {
  /** The length the file was granted at. */
  granted: number;
  reason: string;
}

/** The file's marker, or null when the head of the file has none. */
export function markerOf(text: string): Marker | null {
  for (const l of headLines(text)) {
    const m = MARKER.exec(l);
    if (m) return { granted: Number(m[1]), reason: m[2]! };
  }
  return null;
}

/** The marker's reason, or null when the head of the file has none. */
export function reasonOf(text: string): string | null {
  return markerOf(text)?.reason ?? null;
}

export interface LongFile {
  file: string;
  lines: number;
  reason: string | null;
  /** The length its marker grants, or null without one. */
  granted: number | null;
  /** What is wrong with it, or null when it holds its marker. */
  problem: string | null;
}

/** Every production file over MAX_LINES lines, with its marker and what is wrong, if anything. */
export function longFiles(root: string): LongFile[] {
  const out: LongFile[] = [];
  for (const f of productFiles(root).sort()) {
    const text = fs.readFileSync(f, 'utf8');
    const lines = lineCount(text);
    if (lines <= MAX_LINES) continue;
    const m = markerOf(text);
    let problem: string | null = null;
    if (!m) {
      problem = headLines(text).some((l) => OLD_MARKER.test(l))
        ? `${lines} lines, its marker gives no length: // long-file (${lines} lines): <reason>`
        : `${lines} lines, no reason at its top`;
    } else if (lines > m.granted) {
      problem = `${lines} lines, grown past the ${m.granted} its marker grants: split it, or raise the mark and say why`;
    }
    out.push({ file: path.relative(root, f), lines, reason: m?.reason ?? null, granted: m?.granted ?? null, problem });
  }
  return out;
}

if (require.main === module) {
  const root = path.resolve(process.argv[2] ?? path.join(__dirname, '..'));
  const long = longFiles(root);
  const bad = long.filter((l) => l.problem !== null);
  if (bad.length > 0) {
    for (const l of bad) process.stderr.write(`${l.file}: ${l.problem}\n`);
    process.stderr.write(
      `A production file over ${MAX_LINES} lines splits where it is natural, or says in one line at its top how long it may be and why it is better whole: // long-file (N lines): <reason> (# in a shell script)\n`,
    );
    process.exit(1);
  }
  process.stdout.write(`long files: ${long.length} over ${MAX_LINES} lines, each with its reason and within its mark\n`);
}
