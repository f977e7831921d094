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
