import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { fieldCodes } from '../../../account/fieldCodes';
import { PLATFORM_ACCOUNT } from '../../../account/platformAccount';
import { MapRunError, profileExtract, runMap, skeleton } from '../../../mapping';
import { accountFieldCodes, accountFields } from '../../../mapping/accountFields';

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
    // And every path of the service's schema, those under a `$ref` (a ledger's transactions) too.
    for (const p of accountFields().keys()) expect([p, fieldsAt(p)]).not.toEqual([p, undefined]);
    expect(text).toMatch(/# +external_account_number: COLUMN {2}# string, REQUIRED/);
    expect(text).toMatch(/# +smart_type: COLUMN {2}# string; one of NONE, SMETS1, SMETS1_ENROLLED, SMETS2/);
    // A transaction (the schema's $ref, at the top and under each ledger): a list whose required
    // fields are marked, with the spec's payment types beside the platform's.
    expect(text).toContain([
      '    #     current_statement_transactions:  # list; checked by: max_length',
      '    #       table: TABLE',
      '    #       join: { CHILD_COLUMN: PARENT_KEY_COLUMN }',
      '    #       order: [COLUMN]',
      '    #       fields:',
      '    #         amount: COLUMN  # string, REQUIRED; checked by: invalid_decimal, max_length, required',
    ].join('\n'));
    expect(text.match(/ transaction_date: COLUMN {2}# string, REQUIRED; checked by: /g)).toHaveLength(4);
    expect(text.match(/ payment_type: COLUMN {2}# string; one of .* \(43 in all\); checked by: invalid_choice$/gm)).toHaveLength(4);
    // A value set of one empty text reads as one: quoted, not "one of ;".
    expect(text).not.toMatch(/one of [;,]/);
    expect(text).toMatch(/# +payment_type: COLUMN {2}# string; one of ""/);
    // A free-form value the schema requires (any JSON).
    expect(text).toMatch(/# +type: COLUMN {2}# any JSON value, REQUIRED; checked by: free_form_too_large, required/);
  });

  it('writes beside each field the codes that check it: the schema\'s and the rules\'', () => {
    const text = skeleton();
    // A domain rule's code (customers.ts), the schema's (blank, max_length), required.
    expect(text).toContain('supply_postcode: COLUMN  # string, REQUIRED; checked by: blank, invalid_postcode, max_length, required');
    expect(text).toContain('billing_postcode: COLUMN  # string; checked by: billing_address_new_style_and_legacy, invalid_postcode, max_length');
    // A customer's email: the rule's two codes; a business user's email only the platform's format.
    expect(accountFieldCodes('customers.*.email')).toEqual(['invalid', 'invalid_character', 'invalid_email', 'max_length', 'null', 'possible_test_email_address']);
    expect(accountFieldCodes('business.users.*.email')).not.toContain('possible_test_email_address');
    // A meter reading's date: the date format, required, and the billed-to rule of meterPoints.ts.
    expect(accountFieldCodes('supply_addresses.*.meter_points.*.meters.*.reading_history.*.reading_date')).toEqual([
      'billed_reading_after_last_billed_to_date', 'invalid', 'invalid_character', 'invalid_date', 'null', 'required',
    ]);
    // A range with its own code (errors.ts), and codes at a list's items on the list's line.
    expect(text).toContain('day_of_month: COLUMN  # integer; checked by: invalid_day_of_month');
    expect(text).toContain('supply_addresses:  # list; checked by: duplicate_supply_addresses_found, max_length, portfolio_lead_has_a_supply_address');
    // The first top-level ledger field given, the second open-ended exemption, a document found missing.
    expect(text).toContain('last_statement_balance: COLUMN  # string; checked by: invalid_decimal, ledger_forms_mixed, max_length');
    expect(text).toContain('vat_exemptions:  # list; checked by: max_length, multiple_open_ended_tax_exemptions, tax_exemptions_provided_for_domestic_account');
    expect(text).toContain('statement_path: COLUMN  # string; checked by: blank, invalid_document_path, max_length, path_does_not_exist_in_file_store');
  });

  it('names every field-level code of docs/spec/RULES.md somewhere in the skeleton', () => {
    const rules = fs.readFileSync(path.join(__dirname, '../../../docs/spec/RULES.md'), 'utf8');
    const documented = new Set<string>();
    for (const line of rules.split('\n')) {
      const cells = line.split('|');
      if (cells.length >= 4) for (const m of cells[cells.length - 2].matchAll(/`([a-z_]+)`/g)) documented.add(m[1]);
    }
    const said = new Set([...skeleton().matchAll(/checked by: ([a-z_, ]+)/g)].flatMap((m) => m[1].split(', ')));
    const missing = [...documented].filter((c) => !said.has(c)).sort();
    expect(missing).toEqual([
      // Every field's, said once in the header.
      'invalid',
      'invalid_character',
      'null',
      // Raised at a field the Account does not have.
      'unknown_field',
    ]);
    expect(fieldCodes().unplaced).toEqual([]);
    expect(skeleton()).toContain('checked for its JSON type (invalid; null where it takes none) and every text for characters that cannot be stored (invalid_character)');
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
