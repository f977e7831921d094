import { londonToday, nextDay } from '../../../account/dates';
import { TRANSACTION_TYPES, TransactionSchema } from '../../../account/schema';
import { TOP_UP_TRANSACTION_TYPES, TopUpTransactionSchema } from '../../../topUps/schemas';
import { checkTransactionsBody } from '../../../topUps/transactions';
import { ValidationError } from '../../../http/validation';

const body = (transactions: unknown[]) => ({ import_supplier: 'DEMO_ENERGY', external_account_number: 'EXT-1', transactions });

/** The platform's EnergyCharge, every field of it (the Account's current_statement_transactions[] item). */
const CHARGE = {
  transaction_id: 'TOP-LINES-1',
  transaction_date: '2026-01-31',
  amount: '55.20',
  type: 'CHARGE',
  reason: 'IMPORTED_CHARGE',
  product_code: 'ELEC-STANDARD',
  supply_point_identifier: '1200023305963',
  billing_document_identifier: 'BILL-2026-01',
  display_note: 'January energy',
  note: 'Imported from the legacy bill run.',
  reference: 'LEGACY-REF-9',
  line_items: [
    {
      start_date: '2026-01-01',
      end_date: '2026-01-31',
      net_amount: '50.00',
      number_of_units: '200.5',
      price_per_unit: '0.2493766',
      rate_band: 'DAY',
      rate_specification_code: 'STANDARD',
      external_rate_identifier: 'R-1',
      time_series_specification_code: 'TS-1',
      units: ['100.25', '300.75'],
      params: { meter_serial_number: 'S95A12345' },
    },
  ],
  tax_items: [{ tax_type: 'VAT', unit_type: 'PROPORTION', rate: '0.05', value_taxed: '50.00', amount: '2.50', params: {} }],
};

/** The codes and attrs of the body's validation_error (none: the body is accepted). */
function issuesOf(b: unknown): string[] {
  try {
    checkTransactionsBody(b);
    return [];
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    return err.errors.map((e) => `${e.code}@${e.attr}`);
  }
}

describe("a top-up's transaction is the Account's transaction", () => {
  it("takes every field of the Account's transaction, from the same schemas, but amount and type", () => {
    const accountFields = Object.keys(TransactionSchema.properties).sort();
    expect(Object.keys(TopUpTransactionSchema.properties).sort()).toEqual(accountFields);
    for (const name of accountFields) {
      if (name === 'amount' || name === 'type') continue;
      expect({ name, same: TopUpTransactionSchema.properties[name as keyof typeof TopUpTransactionSchema.properties] === TransactionSchema.properties[name as keyof typeof TransactionSchema.properties] }).toEqual({ name, same: true });
    }
    // The same five types, in the top-up's own order (its SIGN table is typed by them).
    expect([...TOP_UP_TRANSACTION_TYPES].sort()).toEqual([...TRANSACTION_TYPES].sort());
  });

  it('accepts a transaction with line items and tax items and the platform\'s other fields', () => {
    expect(issuesOf(body([CHARGE]))).toEqual([]);
    expect(checkTransactionsBody(body([CHARGE])).transactions[0]).toBe(CHARGE);
  });

  it("still accepts what it accepted before: a numeric amount, a SUPPLY_CHARGE, a platform payment_type, no platform fields", () => {
    expect(
      issuesOf(
        body([
          { transaction_id: 'A', transaction_date: '2026-01-10', amount: 25.5, type: 'PAYMENT', reason: 'ACCOUNT_CHARGE_PAYMENT', payment_type: 'DD_REGULAR_COLLECTION' },
          { transaction_id: 'B', transaction_date: '2026-01-10', amount: '1.00', type: 'SUPPLY_CHARGE' },
        ]),
      ),
    ).toEqual([]);
  });

  it('answers unknown_field for a field neither the platform nor the Account documents, at any depth', () => {
    expect(issuesOf(body([{ ...CHARGE, colour: 'red' }]))).toEqual(['unknown_field@transactions.0.colour']);
    expect(issuesOf(body([{ ...CHARGE, line_items: [{ ...CHARGE.line_items[0], colour: 'red' }] }]))).toEqual(['unknown_field@transactions.0.line_items.0.colour']);
  });

  it("holds line items and tax items to the platform's schema (required fields, value sets, patterns)", () => {
    const { net_amount: _net, ...noNet } = CHARGE.line_items[0]!;
    expect(issuesOf(body([{ ...CHARGE, line_items: [noNet] }]))).toEqual(['required@transactions.0.line_items.0.net_amount']);
    expect(issuesOf(body([{ ...CHARGE, tax_items: [{ ...CHARGE.tax_items[0], unit_type: 'PER_THERM' }] }]))).toEqual(['invalid_choice@transactions.0.tax_items.0.unit_type']);
    expect(issuesOf(body([{ ...CHARGE, payment_type: 'BARTER' }]))).toEqual(['invalid_choice@transactions.0.payment_type']);
  });

  it("reports the Account's rules of a transaction per item, at the item's attr", () => {
    const tomorrow = nextDay(londonToday(new Date()));
    const threeUnits = { ...CHARGE, transaction_id: 'U', line_items: [{ ...CHARGE.line_items[0], units: ['1', '2', '3'] }] };
    const backwards = { ...CHARGE, transaction_id: 'E', line_items: [{ ...CHARGE.line_items[0], start_date: '2026-02-01', end_date: '2026-01-01' }] };
    const future = { ...CHARGE, transaction_id: 'F', transaction_date: tomorrow };
    expect(issuesOf(body([CHARGE, threeUnits, backwards, future]))).toEqual([
      'line_item_units_must_be_two_values@transactions.1.line_items.0.units',
      'start_date_later_than_end_date@transactions.2.line_items.0.end_date',
      'transaction_in_future@transactions.3.transaction_date',
    ]);
  });
});
