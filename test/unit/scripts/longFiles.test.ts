import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { longFiles, markerOf, MAX_LINES, reasonOf } from '../../../scripts/longFiles';

let root = '';
beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'long-files-'));
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** Writes `text` at `file` below the throw-away root. */
function put(file: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  fs.writeFileSync(path.join(root, file), text);
}

const body = (n: number) => 'export const x = 1;\n'.repeat(n);

describe('long file check (npm run lint)', () => {
  it('reads the reason and the granted length from the first lines, after a shebang too', () => {
    expect(markerOf('// long-file (320 lines): one table, read top to bottom.\nimport x;\n')).toEqual({ granted: 320, reason: 'one table, read top to bottom.' });
    expect(reasonOf('#!/usr/bin/env node\n// long-file (301 lines): one entry point and its options.\n')).toBe('one entry point and its options.');
    expect(reasonOf('import a;\nimport b;\n// long-file (400 lines): one entry point and its options.\n')).toBe('one entry point and its options.');
    expect(markerOf('#!/usr/bin/env bash\n# long-file (410 lines): the one library every script sources.\n')).toEqual({ granted: 410, reason: 'the one library every script sources.' });
  });

  it('finds no marker further down, nor an empty one, nor one without its length', () => {
    expect(reasonOf('import a;\nimport b;\nimport c;\n// long-file (400 lines): too far down to count here.\n')).toBeNull();
    expect(reasonOf('// long-file (400 lines):\n')).toBeNull();
    expect(reasonOf('// long-file (400 lines): ok\n')).toBeNull();
    expect(reasonOf('// long-file: one table, read top to bottom.\n')).toBeNull();
    expect(reasonOf('// Over 300 lines on purpose: an older, free-form note.\n')).toBeNull();
    expect(reasonOf('/* long-file (400 lines): a block comment is not the marker. */\n')).toBeNull();
  });

  it(`lists the production files over ${MAX_LINES} lines (.ts, .js, .sh), failing those without a marker, with an old one, or grown past theirs`, () => {
    put('lib/short.ts', body(MAX_LINES));
    put('lib/long.ts', body(MAX_LINES + 1));
    put('cli/why.ts', `// long-file (${MAX_LINES + 1} lines): one command group, one loader.\n${body(MAX_LINES)}`);
    put('cli/grown.ts', `// long-file (${MAX_LINES + 1} lines): one command group, one loader.\n${body(MAX_LINES + 5)}`);
    put('cli/old.ts', `// long-file: one command group, one loader.\n${body(MAX_LINES)}`);
    put('ops/page/page.js', body(MAX_LINES + 1));
    put('scripts/lib/common.sh', `# long-file (${MAX_LINES + 1} lines): the one library every script sources.\n${'x=1\n'.repeat(MAX_LINES + 1)}`);
    put('test/huge.test.ts', body(1000));
    put('bench/huge.ts', body(1000));
    put('lib/types.d.ts', body(1000));
    const got = longFiles(root).map((l) => ({ file: l.file, lines: l.lines, granted: l.granted, problem: l.problem === null ? null : l.problem.replace(/^\d+ lines, /, '').slice(0, 12) }));
    expect(got).toEqual([
      { file: path.join('cli', 'grown.ts'), lines: MAX_LINES + 6, granted: MAX_LINES + 1, problem: 'grown past t' },
      { file: path.join('cli', 'old.ts'), lines: MAX_LINES + 1, granted: null, problem: 'its marker g' },
      { file: path.join('cli', 'why.ts'), lines: MAX_LINES + 1, granted: MAX_LINES + 1, problem: null },
      { file: path.join('lib', 'long.ts'), lines: MAX_LINES + 1, granted: null, problem: 'no reason at' },
      { file: path.join('ops', 'page', 'page.js'), lines: MAX_LINES + 1, granted: null, problem: 'no reason at' },
      { file: path.join('scripts', 'lib', 'common.sh'), lines: MAX_LINES + 2, granted: MAX_LINES + 1, problem: 'grown past t' },
    ]);
  });
});
