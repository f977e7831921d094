import fs from 'node:fs';
import path from 'node:path';
import { validationRulesFiles, validationRulesVersion } from '../../../account/fingerprint';
import { digestForm, digestFormFiles } from '../../../db/stores/accountDigests';

/**
 * The two hashes that stand for "the same behaviour" (issue 50): the validation rules version (a
 * worker skips validating an account the API validated under the same one) and the digest form (a
 * stored digest is reused under the same one). Each covers every file that decides what it stands
 * for, data included: changing any one of them changes the hash.
 */
const ROOT = path.resolve(__dirname, '..', '..', '..');
const rel = (files: string[]) => files.map((f) => path.relative(ROOT, f));
/** The file system, but `changed` read with one more byte. */
const alter = (changed: string) => (file: string) => (file === changed ? Buffer.concat([fs.readFileSync(file), Buffer.from(' ')]) : fs.readFileSync(file));

/**
 * The hash a fresh process computes when the file matching `changed` reads with one more byte:
 * through the file system (no test hook), so that it also holds the code before issue 50 to account.
 */
function freshHash(which: 'rules' | 'digest', changed: RegExp | null): string {
  const real = fs.readFileSync;
  const spy = jest.spyOn(fs, 'readFileSync').mockImplementation(((file: fs.PathOrFileDescriptor, options?: unknown) => {
    const content = (real as (f: fs.PathOrFileDescriptor, o?: unknown) => string | Buffer)(file, options);
    if (changed === null || typeof file !== 'string' || !changed.test(file)) return content;
    return typeof content === 'string' ? `${content} ` : Buffer.concat([content, Buffer.from(' ')]);
  }) as typeof fs.readFileSync);
  let hash = '';
  try {
    jest.isolateModules(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      hash = which === 'rules' ? require('../../../account/fingerprint').validationRulesVersion() : require('../../../db/stores/accountDigests').digestForm();
    });
  } finally {
    spy.mockRestore();
  }
  return hash;
}

describe('a fresh process\'s hashes', () => {
  it.each<[string, 'rules' | 'digest', RegExp]>([
    ['the validation rules version: account/platformAccount.json', 'rules', /account\/platformAccount\.json$/],
    ['the digest form: account/platformAccount.json', 'digest', /account\/platformAccount\.json$/],
    ['the digest form: db/stores/platformTables.ts', 'digest', /db\/stores\/platformTables\.ts$/],
    ['the digest form: db/stores/ledgerForm.ts', 'digest', /db\/stores\/ledgerForm\.ts$/],
  ])('%s changed changes it', (_name, which, changed) => {
    expect(freshHash(which, changed)).not.toBe(freshHash(which, null));
  });
});

describe('the validation rules version', () => {
  it('covers the rules, the schema and the platform\'s Account as data', () => {
    expect(rel(validationRulesFiles())).toEqual(expect.arrayContaining([
      'account/platformAccount.json', 'account/platformAccount.ts', 'account/platformSchema.ts', 'account/schema.ts', 'account/rules/ledgers.ts', 'account/dates.ts',
    ]));
  });

  it('changes when any one of its files changes', () => {
    const base = validationRulesVersion();
    expect(validationRulesVersion(alter('/nowhere'))).toBe(base);
    const unchanged = validationRulesFiles().filter((f) => validationRulesVersion(alter(f)) === base);
    expect(rel(unchanged)).toEqual([]);
  });
});

describe('the digest form', () => {
  it('covers the validator\'s files and the storage that decides the read-back', () => {
    expect(rel(digestFormFiles())).toEqual(expect.arrayContaining([
      'account/platformAccount.json', 'account/canonical.ts', 'db/stores/platformTables.ts', 'db/stores/ledgerForm.ts', 'db/stores/accountTables.ts', 'db/stores/accountAssemble.ts', 'db/stores/unnestInsert.ts',
    ]));
  });

  it('changes when any one of its files changes', () => {
    const base = digestForm();
    expect(digestForm(alter('/nowhere'))).toBe(base);
    const unchanged = digestFormFiles().filter((f) => digestForm(alter(f)) === base);
    expect(rel(unchanged)).toEqual([]);
  });
});
