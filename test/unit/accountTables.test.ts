import { AccountSchema } from '../../account/schema';
import { LAYOUT, type TableLayout } from '../../db/stores/accountLayout';
import { schemaFields } from '../support/accountFields';

/**
 * Every field of the Account (account/schema.ts) has a place in the storage descriptor
 * (db/stores/accountTables.ts), and every field the descriptor names is one of the schema's: a field
 * added to the schema and not to the descriptor would be validated, then silently not stored.
 */

/** The payload fields the descriptor reads back, as the same paths. */
function describedFields(layout: TableLayout, path: string, out: string[]): string[] {
  for (const c of layout.columns) if (c.field) out.push(`${path}.${c.field.join('.')}`);
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
    expect(describedFields(LAYOUT.accounts, '', []).sort()).toEqual(schemaFields(AccountSchema).sort());
  });

  it('gives every table but the first a parent that comes before it (insert order)', () => {
    const tables = Object.keys(LAYOUT);
    for (const [i, table] of tables.entries()) {
      const parent = LAYOUT[table as keyof typeof LAYOUT].parentTable;
      if (parent) expect(tables.indexOf(parent)).toBeLessThan(i);
    }
  });
});
