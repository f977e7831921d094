import fs from 'node:fs';
import path from 'node:path';

/**
 * Every relative link of README.md and docs/ resolves: to a file or folder of the repository, and
 * where it names an anchor, to a heading of that Markdown file (GitHub's heading ids). External
 * links (http:, https:, mailto:) are not followed: tests do not reach the internet.
 */
const ROOT = path.join(__dirname, '../../..');

function markdownFiles(): string[] {
  const out = ['README.md'];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = path.join(dir, e.name);
      if (e.isDirectory()) walk(rel);
      else if (e.name.endsWith('.md')) out.push(rel);
    }
  };
  walk('docs');
  return out;
}

/** The text outside fenced code blocks and inline code spans, where links are links. */
function prose(text: string): string {
  return text
    .split(/^```[^\n]*\n[\s\S]*?^```[ \t]*$/m)
    .join('\n')
    .replace(/`[^`\n]*`/g, '');
}

/** GitHub's id of a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2. */
export function headingIds(markdown: string): Set<string> {
  const ids = new Set<string>();
  const seen = new Map<string, number>();
  for (const block of markdown.split(/^```[^\n]*\n[\s\S]*?^```[ \t]*$/m)) {
    for (const m of block.matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
      const text = m[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
      const base = text
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\- _]/gu, '')
        .replace(/ /g, '-');
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      ids.add(n === 0 ? base : `${base}-${n}`);
    }
  }
  return ids;
}

/** The link targets of a Markdown text: inline `[text](target)`, images, and reference definitions. */
export function linkTargets(markdown: string): string[] {
  const text = prose(markdown);
  const inline = [...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
  const defs = [...text.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm)].map((m) => m[1]!);
  return [...inline, ...defs];
}

function brokenLinks(file: string): string[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const broken: string[] = [];
  for (const target of linkTargets(text)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
    const [rawPath, anchor] = target.split('#', 2) as [string, string | undefined];
    const resolved = rawPath === '' ? path.join(ROOT, file) : path.resolve(path.dirname(path.join(ROOT, file)), decodeURIComponent(rawPath));
    if (!resolved.startsWith(ROOT + path.sep) && resolved !== ROOT) {
      broken.push(`${target}: outside the repository`);
      continue;
    }
    if (!fs.existsSync(resolved)) {
      broken.push(`${target}: no such file`);
      continue;
    }
    if (anchor !== undefined && resolved.endsWith('.md') && !headingIds(fs.readFileSync(resolved, 'utf8')).has(anchor)) {
      broken.push(`${target}: no heading #${anchor} in ${path.relative(ROOT, resolved)}`);
    }
  }
  return broken;
}

describe('documentation links', () => {
  it('finds the links and heading ids the way GitHub does', () => {
    const md = ['# Top', '## `data-import migrate` during an outage', '## Top', "## The platform's other operations", '```', '# not a heading [x](nowhere.md)', '```', 'See [a](a.md#b), ![p](img.svg) and `[c](code.md)`.', '[ref]: ref.md'].join('\n');
    expect([...headingIds(md)]).toEqual(['top', 'data-import-migrate-during-an-outage', 'top-1', 'the-platforms-other-operations']);
    expect(linkTargets(md)).toEqual(['a.md#b', 'img.svg', 'ref.md']);
  });

  it('README stays a front page: the two commands first, under 15 KB', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(15 * 1024);
    const firstBlock = readme.match(/```sh\n([\s\S]*?)```/)![1]!;
    expect(firstBlock.split('\n').filter(Boolean).map((l) => l.split('#')[0]!.trim())).toEqual(['npm run up', 'npm test']);
  });

  it.each(markdownFiles())('every relative link of %s resolves to a file and heading of the repository', (file) => {
    expect(brokenLinks(file)).toEqual([]);
  });
});
