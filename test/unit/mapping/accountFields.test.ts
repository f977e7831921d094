import { PAYMENT_TYPES, TRANSACTION_TYPES } from '../../../account/schema';
import { schemaCodes } from '../../../account/schemaCodes';
import { resolveRef } from '../../../account/schemaWalk';
import { accountFields } from '../../../mapping/accountFields';

describe('the Account fields a mapping may write (mapping/accountFields.ts)', () => {
  it('has every path the validator checks, required where the schema requires it', () => {
    const fields = accountFields();
    const codes = schemaCodes();
    expect([...codes.keys()].filter((p) => !fields.has(p))).toEqual([]);
    // build.ts writes an empty list only where the field is required: the same lists as the validator's.
    const required = (p: string) => codes.get(p)?.has('required') ?? false;
    expect([...fields].filter(([p, f]) => f.required !== required(p)).map(([p]) => p)).toEqual([]);
  });

  it("follows the $ref of a ledger's transactions: their fields, required ones and the spec's values", () => {
    const fields = accountFields();
    for (const list of ['ledgers.*.current_statement_transactions', 'ledgers.*.historical_statement_transactions']) {
      expect(fields.get(list)).toMatchObject({ kinds: new Set(['list']), required: false });
      expect(fields.get(`${list}.*.transaction_date`)).toMatchObject({ required: true });
      expect(fields.get(`${list}.*.amount`)).toMatchObject({ required: true });
      expect(fields.get(`${list}.*.type`)?.values).toEqual(expect.arrayContaining([...TRANSACTION_TYPES]));
      expect(fields.get(`${list}.*.transaction_id`)).toMatchObject({ required: false });
      expect(fields.get(`${list}.*.tax_items.*.rate`)).toMatchObject({ required: true });
      for (const sub of ['line_items', 'tax_items', 'line_items.*.units']) expect(fields.get(`${list}.*.${sub}`)).toMatchObject({ kinds: new Set(['list']), required: false });
    }
    // The top-level form: the spec's payment types as well as the platform's.
    for (const p of ['current_statement_transactions.*.payment_type', 'ledgers.*.current_statement_transactions.*.payment_type']) {
      expect(fields.get(p)?.values).toEqual(expect.arrayContaining([...PAYMENT_TYPES]));
      expect(fields.get(p)?.values).toHaveLength(PAYMENT_TYPES.length);
    }
    expect(fields.get('current_statement_transactions.*.transaction_date')).toMatchObject({ required: true });
  });

  it('refuses a $ref to no registered schema rather than leave out the paths under it', () => {
    expect(() => resolveRef({ $ref: 'https://schemas.data-import/account/Nothing.json' })).toThrow(/names no schema of REFERENCED_SCHEMAS/);
  });
});
