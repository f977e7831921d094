import { AccountSchema } from '../../account/schema';
import { LAYOUT, type TableLayout } from '../../db/stores/accountLayout';
import { placeRows, planAccountRows, planItemRows } from '../../db/stores/accountRows';
import type { Account } from '../../db/stores/accountTypes';
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

describe('one item added to an imported account (planItemRows, placeRows)', () => {
  const input = { accountNumber: 'A-1', importSupplier: 'DEMO_ENERGY', externalAccountNumber: 'EXT-1', account: {} as Account, userNumbers: [], dunningProcessId: '' };
  const transaction = {
    transaction_id: 'T-1',
    transaction_date: '2026-11-14',
    amount: '052.50',
    type: 'CHARGE',
    line_items: [
      { start_date: '2026-11-01', end_date: '2026-11-14', net_amount: '50.00', number_of_units: '2', units: ['1', '3'] },
      { start_date: '2026-11-01', end_date: '2026-11-14', net_amount: '0', number_of_units: '14' },
    ],
    tax_items: [{ tax_type: 'VAT', unit_type: 'PROPORTION', rate: '0.05', value_taxed: '50.00', amount: '2.50' }],
  };

  it('plans the item and its line items and tax items as the whole account plans them, under the parent it is given', () => {
    const whole = planAccountRows({ ...input, account: { ledgers: [{ ledger_balance: '0', current_statement_transactions: [transaction] }] } as unknown as Account });
    const item = planItemRows(input, 'ledger_transactions', [transaction], 0, 77, 'current');
    for (const table of ['ledger_transactions', 'ledger_transaction_line_items', 'ledger_transaction_tax_items']) {
      // The same rows but the parent: the ledger's local index there, its real id here.
      expect(item[table]!.map(({ ledger_id: _l, ...r }) => r)).toEqual(whole[table]!.map(({ ledger_id: _l, ...r }) => r));
    }
    expect(item.ledger_transactions).toEqual([expect.objectContaining({ ledger_id: 77, statement: 'current', position: 0, amount: '052.50', amount_text: '052.50' })]);
    expect(Object.entries(item).filter(([, rows]) => rows.length > 0).map(([t]) => t).sort()).toEqual(['ledger_transaction_line_items', 'ledger_transaction_tax_items', 'ledger_transactions']);

    placeRows(item, { ledger_transactions: [900], ledger_transaction_line_items: [10, 11], ledger_transaction_tax_items: [20] }, 5, 'ledger_transactions');
    expect(item.ledger_transactions![0]).toEqual(expect.objectContaining({ id: 900, account_id: 5, ledger_id: 77 }));
    expect(item.ledger_transaction_line_items!.map((r) => [r.id, r.account_id, r.ledger_transaction_id, r.position])).toEqual([[10, 5, 900, 0], [11, 5, 900, 1]]);
    expect(item.ledger_transaction_tax_items!.map((r) => [r.id, r.ledger_transaction_id])).toEqual([[20, 900]]);
  });

  it('plans several items in one go, each at its position after the first, each line item under its own transaction', () => {
    const second = { ...transaction, transaction_id: 'T-2', tax_items: [] };
    const items = planItemRows(input, 'ledger_transactions', [transaction, second], 3, 77, 'current');
    expect(items.ledger_transactions!.map((r) => [r.id, r.position, r.transaction_id, r.ledger_id])).toEqual([[0, 3, 'T-1', 77], [1, 4, 'T-2', 77]]);
    expect(items.ledger_transaction_line_items!.map((r) => r.ledger_transaction_id)).toEqual([0, 0, 1, 1]);
  });
});
