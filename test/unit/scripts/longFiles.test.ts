import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { longFiles, MAX_LINES, reasonOf } from '../../../scripts/longFiles';

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
  it('reads the reason from the first lines, after a shebang too', () => {
    expect(reasonOf('// long-file: one table, read top to bottom.\nimport x;\n')).toBe('one table, read top to bottom.');
    expect(reasonOf('#!/usr/bin/env node\n// long-file: one entry point and its options.\n')).toBe('one entry point and its options.');
    expect(reasonOf('import a;\nimport b;\n// long-file: one entry point and its options.\n')).toBe('one entry point and its options.');
  });

  it('finds no reason further down, nor an empty or other one', () => {
    expect(reasonOf('import a;\nimport b;\nimport c;\n// long-file: too far down to count here.\n')).toBeNull();
    expect(reasonOf('// long-file:\n')).toBeNull();
    expect(reasonOf('// long-file: ok\n')).toBeNull();
    expect(reasonOf('// Over 300 lines on purpose: an older, free-form note.\n')).toBeNull();
    expect(reasonOf('/* long-file: a block comment is not the marker. */\n')).toBeNull();
  });

  it(`lists the production files over ${MAX_LINES} lines, with their reason or none`, () => {
    put('lib/short.ts', body(MAX_LINES));
    put('lib/long.ts', body(MAX_LINES + 1));
    put('cli/why.ts', `// long-file: one command group, one loader.\n${body(MAX_LINES)}`);
    put('test/huge.test.ts', body(1000));
    put('bench/huge.ts', body(1000));
    put('lib/types.d.ts', body(1000));
    expect(longFiles(root)).toEqual([
      { file: path.join('cli', 'why.ts'), lines: MAX_LINES + 1, reason: 'one command group, one loader.' },
      { file: path.join('lib', 'long.ts'), lines: MAX_LINES + 1, reason: null },
    ]);
  });
});
