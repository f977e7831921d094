import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LocalDocumentStore, resolveDocumentPath } from '../../../account/documents';

const ROOT = '/srv/documents/demo';

describe('resolveDocumentPath', () => {
  it('resolves a payload path below the supplier document root', () => {
    expect(resolveDocumentPath(ROOT, '/statements/2026/10/a.pdf')).toEqual({ relative: 'statements/2026/10/a.pdf', absolute: '/srv/documents/demo/statements/2026/10/a.pdf' });
    expect(resolveDocumentPath(ROOT, 'notes/./b%20c.pdf')?.relative).toBe('notes/b%20c.pdf');
  });

  it.each([
    ['/../etc/passwd'],
    ['/a/../../b.pdf'],
    ['..'],
    ['/a/%2e%2e/%2E%2E/b.pdf'],
    ['/a/..%2fb.pdf'],
    ['/a/%252e%252e/b.pdf'],
    ['/a\\..\\b.pdf'],
    ['/a/b.pdf\u0000.txt'],
    ['/a/b.pdf%00.txt'],
    ['/a%5c..%5cb.pdf'],
    [''],
    ['/'],
  ])('rejects %p', (payloadPath) => {
    expect(resolveDocumentPath(ROOT, payloadPath)).toBeNull();
  });
});

describe('LocalDocumentStore', () => {
  it('finds a file below the root and nothing outside it', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-'));
    fs.mkdirSync(path.join(root, 'notes'));
    fs.writeFileSync(path.join(root, 'notes', 'a.pdf'), 'x');
    const store = new LocalDocumentStore();
    expect(await store.exists(root, 'notes/a.pdf')).toBe(true);
    expect(await store.exists(root, 'notes/missing.pdf')).toBe(false);
    expect(await store.exists(root, 'notes')).toBe(false);
    expect(await store.exists(path.join(root, 'notes'), '../notes/a.pdf')).toBe(false);
    fs.rmSync(root, { recursive: true });
  });
});
