import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { PLATFORM_ACCOUNT } from '../../../account/platformAccount';
import { MapRunError, profileExtract, runMap, skeleton } from '../../../mapping';

const EXAMPLE = path.join(__dirname, '../../../examples/legacy-extract');

describe('map init', () => {
  it('writes every Account field, commented, in YAML that stays valid with the comments removed', () => {
    const text = skeleton();
    const uncommented = text.replace(/^ {4}# /gm, '    ');
    const parsed = parse(uncommented) as { account: { fields: Record<string, unknown> } };
    // Every platform path is a key somewhere in the tree.
    const fieldsAt = (p: string): unknown => {
      let node: unknown = parsed.account;
      for (const part of p.split('.')) {
        if (part === '*') continue;
        node = (node as { fields: Record<string, unknown> }).fields[part];
      }
      return node;
    };
    for (const p of Object.keys(PLATFORM_ACCOUNT)) expect([p, fieldsAt(p)]).not.toEqual([p, undefined]);
    expect(text).toMatch(/# +external_account_number: COLUMN {2}# string, REQUIRED/);
    expect(text).toMatch(/# +smart_type: COLUMN {2}# string; one of NONE, SMETS1, SMETS1_ENROLLED, SMETS2/);
  });

  it('profiles an extract: encoding, date formats and the codes of code columns', () => {
    const [accounts, customers] = profileExtract(path.join(EXAMPLE, 'extract'));
    expect(accounts).toMatchObject({ name: 'accounts', file: 'ACCOUNTS.CSV', encoding: 'windows-1252', delimiter: ',', rows: 4 });
    expect(accounts.columns.find((c) => c.name === 'STATUS')?.codes).toEqual([['A', 3], ['C', 1]]);
    expect(customers.columns.find((c) => c.name === 'DOB')?.dateFormat).toBe('dd/mm/yyyy');
    const text = skeleton(path.join(EXAMPLE, 'extract'));
    expect(text).toContain('{ map: STATUS, fallback: fail, unconfirmed: true, values: { "A": null, "C": null } }');
  });

  it('refuses a run with an unconfirmed conversion table unless told otherwise', async () => {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'map-init-'));
    try {
      const mapping = path.join(work, 'm.yaml');
      fs.copyFileSync(path.join(EXAMPLE, 'titles.csv'), path.join(work, 'titles.csv'));
      fs.writeFileSync(mapping, fs.readFileSync(path.join(EXAMPLE, 'mapping.yaml'), 'utf8').replace('fallback: default, default: DIRECT }', 'fallback: default, default: DIRECT, unconfirmed: true }'));
      const opts = { mapping, extracts: path.join(EXAMPLE, 'extract'), out: path.join(work, 'b.ndjson') };
      await expect(runMap(opts)).rejects.toThrow(MapRunError);
      expect(fs.existsSync(opts.out)).toBe(false);
      expect((await runMap({ ...opts, allowUnconfirmed: true })).stats.valid).toBe(3);
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
  });
});
