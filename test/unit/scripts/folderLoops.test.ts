import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { folderEdges, folderLoops, importsOf } from '../../../scripts/folderLoops';

const made: string[] = [];
afterAll(() => made.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

/** A throw-away tree: path → source. */
function tree(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'folder-loops-'));
  made.push(root);
  for (const [p, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, p)), { recursive: true });
    fs.writeFileSync(path.join(root, p), text);
  }
  return root;
}

describe('folder loop check (npm run lint)', () => {
  it('reads every kind of relative import and tells type-only ones apart', () => {
    const found = importsOf(
      'x.ts',
      [
        "import { a } from './a';",
        "import type { B } from '../b';",
        "import { type C, type D } from '../c';",
        "import { type E, f } from '../e';",
        "export { g } from '../g';",
        "export type { H } from '../h';",
        "type I = typeof import('../i');",
        "const j = require('../j');",
        "const k = require.resolve('../k');",
        "void import('../l');",
        "import pkg from 'pkg';",
      ].join('\n'),
    );
    expect(found).toEqual([
      { spec: './a', typeOnly: false },
      { spec: '../b', typeOnly: true },
      { spec: '../c', typeOnly: true },
      { spec: '../e', typeOnly: false },
      { spec: '../g', typeOnly: false },
      { spec: '../h', typeOnly: true },
      { spec: '../i', typeOnly: true },
      { spec: '../j', typeOnly: false },
      { spec: '../k', typeOnly: false },
      { spec: '../l', typeOnly: false },
    ]);
  });

  it('finds two folders importing each other, and a longer loop, naming an import of each step', () => {
    const root = tree({
      'a/one.ts': "import { b } from '../b/two';\nexport const a = b;",
      'b/two.ts': "import type { A } from '../a/one';\nexport const b = 1; export type X = A;",
      'c/x.ts': "import { d } from '../d/deep/y';\nexport const c = d;",
      'd/deep/y.ts': "import { e } from '../../e/z';\nexport const d = e;",
      'e/z.ts': "import { c } from '../c/x';\nexport const e = c;",
      'test/t.ts': "import { a } from '../a/one';",
    });
    const loops = folderLoops(folderEdges(root));
    expect(loops.map((l) => l.folders.sort())).toEqual(expect.arrayContaining([['a', 'b'], ['c', 'd', 'e']]));
    expect(loops).toHaveLength(2);
    const ab = loops.find((l) => l.folders.includes('a'))!;
    expect(ab.loop.map((e) => `${e.from}>${e.to}`)).toEqual(['a>b', 'b>a']);
    expect(ab.loop[1].example).toBe(`${path.join('b', 'two.ts')} -> ${path.join('a', 'one')}`);
  });

  it("does not count a workflow's type-only imports of its activities, which the feature's start by function reference answers", () => {
    const root = tree({
      'imports/start.ts': "import { flow } from '../workflows/flow';\nexport const s = flow;\nexport const store = 1;",
      'activities/imports/index.ts': "import { store } from '../../imports/start';\nexport const createActivities = () => ({ store });",
      'workflows/flow.ts': "import type { createActivities } from '../activities/imports';\nexport type A = typeof createActivities; export const flow = 1;",
    });
    expect(folderLoops(folderEdges(root))).toEqual([]);
    fs.writeFileSync(path.join(root, 'workflows/flow.ts'), "import { createActivities } from '../activities/imports';\nexport const flow = createActivities;");
    expect(folderLoops(folderEdges(root)).map((l) => l.folders.sort())).toEqual([['activities', 'imports', 'workflows']]);
  });

  it('passes on this repository', () => {
    expect(folderLoops(folderEdges(path.join(__dirname, '../../..')))).toEqual([]);
  });
});
