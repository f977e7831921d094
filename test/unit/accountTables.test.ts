import { AccountSchema } from '../../account/schema';
import { LAYOUT, type TableLayout } from '../../db/stores/accountLayout';
import { TOP_LEVEL_LEDGER_FIELDS, TOP_LEVEL_MARK } from '../../db/stores/ledgerForm';
import { schemaFields } from '../support/accountFields';

/**
 * Every field of the Account (account/schema.ts) has a place in the storage descriptor
 * (db/stores/accountTables.ts), and every field the descriptor names is one of the schema's: a field
 * added to the schema and not to the descriptor would be validated, then silently not stored.
 */

/** The payload fields the descriptor reads back, as the same paths. */
function describedFields(layout: TableLayout, path: string, out: string[]): string[] {
  // The ledger made from the platform's top-level form is marked (db/stores/ledgerForm.ts), not a field.
  for (const c of layout.columns) if (c.field && c.field[0] !== TOP_LEVEL_MARK) out.push(`${path}.${c.field.join('.')}`);
  for (const child of layout.children) {
    const childLayout = LAYOUT[child];
    for (const { path: source } of childLayout.sources) {
      describedFields(childLayout, `${path}.${source}${childLayout.one ? '' : '[]'}`, out);
    }
  }
  return out;
}

describe('account storage descriptor', () => {
  it('stores exactly the fields of the Account schema', () => {
    // The platform's top-level ledger form is stored as a ledger: its fields are the ledger's.
    const asStored = (f: string) =>
      TOP_LEVEL_LEDGER_FIELDS.some((k) => f === `.${k}` || f.startsWith(`.${k}[]`) || f.startsWith(`.${k}.`)) ? `.ledgers[]${f}` : f;
    const schema = [...new Set(schemaFields(AccountSchema).map(asStored))].sort();
    expect(describedFields(LAYOUT.accounts, '', []).sort()).toEqual(schema);
  });

  it('gives every table but the first a parent that comes before it (insert order)', () => {
    const tables = Object.keys(LAYOUT);
    for (const [i, table] of tables.entries()) {
      const parent = LAYOUT[table as keyof typeof LAYOUT].parentTable;
      if (parent) expect(tables.indexOf(parent)).toBeLessThan(i);
    }
  });
});
