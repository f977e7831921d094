import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkDocumentPaths } from '../../../topUps/documents';
import { LocalDocumentStore } from '../../../account/documents';
import type { ImportSupplier } from '../../../suppliers/store';

const supplier = (documentRoot: string, checkDocumentExistence: boolean) => ({ code: 'DOCS_ENERGY', documentRoot, checkDocumentExistence }) as ImportSupplier;

describe('document paths of top-ups and the document store (issue 39, low items)', () => {
  let root: string;
  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'docroot-'));
    fs.writeFileSync(path.join(root, 'there.pdf'), 'x');
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it('a top-up checks that its documents exist when the supplier asks, as the import does, with no store passed (the API passes none)', async () => {
    await expect(checkDocumentPaths(supplier(root, true), undefined, [{ attr: 'documents.0.path', path: '/there.pdf' }])).resolves.toBeUndefined();
    await expect(checkDocumentPaths(supplier(root, true), undefined, [{ attr: 'documents.0.path', path: '/missing.pdf' }])).rejects.toMatchObject({
      status: 400,
      code: 'validation_error',
      errors: [expect.objectContaining({ code: 'path_does_not_exist_in_file_store', attr: 'documents.0.path' })],
    });
    await expect(checkDocumentPaths(supplier(root, false), undefined, [{ attr: 'documents.0.path', path: '/missing.pdf' }])).resolves.toBeUndefined();
  });

  it('an empty document root is no store at all: nothing exists in it, the working directory is never consulted', async () => {
    // package.json exists in the working directory of every test run.
    expect(fs.existsSync('package.json')).toBe(true);
    expect(await new LocalDocumentStore().exists('', 'package.json')).toBe(false);
    expect(await new LocalDocumentStore().exists('  ', 'package.json')).toBe(false);
    await expect(checkDocumentPaths(supplier('', true), undefined, [{ attr: 'documents.0.path', path: '/package.json' }])).rejects.toMatchObject({ code: 'validation_error' });
    expect(await new LocalDocumentStore().exists(root, 'there.pdf')).toBe(true);
  });
});
