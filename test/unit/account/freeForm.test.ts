import { FREE_FORM_BOUNDS, freeFormExcess } from '../../../account/freeForm';
import { ajv } from '../../../account/ajv';
import { translateAjvErrors } from '../../../account/errors';
import { IssueList } from '../../../account/issues';
import { platformSchema } from '../../../account/platformSchema';
import { generateBook } from '../../../cli/generate/book';
import { check, errorsOf, example } from './helpers';

/**
 * Issue 47 item 2: every free-form value of the Account is bounded in values, depth and characters
 * (`free_form_too_large` at the field), and what the store cannot hold as sent is refused by
 * validation (`invalid_character`), so validate and create can never disagree.
 */

const { maxValues, maxDepth, maxChars } = FREE_FORM_BOUNDS;
/** An array of `n - 1` nulls: `n` values. */
const values = (n: number) => Array.from({ length: n - 1 }, () => null);
/** Arrays nested `n` deep. */
const nested = (n: number): unknown => {
  let v: unknown = [];
  for (let i = 1; i < n; i++) v = [v];
  return v;
};

describe('freeFormExcess', () => {
  it('takes each bound exactly and refuses one past it', () => {
    expect(freeFormExcess(values(maxValues))).toBeNull();
    expect(freeFormExcess(values(maxValues + 1))).toEqual({ bound: 'values', limit: maxValues });
    expect(freeFormExcess(nested(maxDepth))).toBeNull();
    expect(freeFormExcess(nested(maxDepth + 1))).toEqual({ bound: 'depth', limit: maxDepth });
    expect(freeFormExcess({ k: 'x'.repeat(maxChars - 1) })).toBeNull();
    expect(freeFormExcess({ k: 'x'.repeat(maxChars) })).toEqual({ bound: 'chars', limit: maxChars });
    expect(freeFormExcess('x'.repeat(maxChars + 1))).toEqual({ bound: 'chars', limit: maxChars });
  });

  it('stops at the first excess without recursing: 100,000 deep, 1.4 million values, 20,000 keys', () => {
    expect(freeFormExcess(nested(100_000))?.bound).toBe('depth');
    expect(freeFormExcess(values(1_400_000))?.bound).toBe('values');
    const wide = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i]));
    expect(freeFormExcess(wide)?.bound).toBe('values');
  });

  it('leaves every free-form value of generated accounts far inside the bounds (the measurement of docs/security.md)', () => {
    let largest = { values: 0, chars: 0 };
    const visit = (v: unknown): void => {
      if (typeof v !== 'object' || v === null) return;
      for (const [k, x] of Object.entries(v)) {
        if (FREE_FORM_FIELDS.has(k) && x !== undefined) {
          const s = JSON.stringify(x);
          largest = { values: Math.max(largest.values, (s.match(/[,[{]/g) ?? []).length + 1), chars: Math.max(largest.chars, s.length) };
          expect(freeFormExcess(x)).toBeNull();
        }
        visit(x);
      }
    };
    for (const profile of ['full', 'mixed'] as const) {
      for (const a of generateBook({ seed: 47, count: 6, profile, today: '2026-11-21' })) visit(a);
    }
    expect(largest.values).toBeGreaterThan(0);
    expect(largest.values * 100).toBeLessThan(maxValues);
    expect(largest.chars * 100).toBeLessThan(maxChars);
  });
});

const FREE_FORM_FIELDS = new Set(['value', 'params', 'details', 'segment_name', 'additional_data', 'structured_street_address', 'role', 'type']);

describe('the free-form fields of the Account', () => {
  it.each([
    ['business.details.*.value'],
    ['business.segment_name'],
    ['customers.*.details'],
    ['partner_organisations.*.role'],
    ['current_statement_transactions.*.line_items.*.params'],
    ['billing_address.structured_street_address'],
    ['supply_addresses.*.meter_points.*.smart_site_visit.*.additional_data'],
  ])('%s is bounded by the schema: free_form_too_large past a bound, nothing at it', (path) => {
    const validate = ajv.compile(platformSchema(path));
    const codes = (v: unknown) => {
      if (validate(v)) return [];
      const out = new IssueList();
      translateAjvErrors(validate.errors ?? [], v, out);
      return out.items.map((i) => i.code);
    };
    const at = { k: values(maxValues - 1) };
    expect(codes(at)).toEqual([]);
    expect(codes({ k: values(maxValues) })).toEqual(['free_form_too_large']);
    expect(codes({ k: nested(maxDepth) })).toEqual(['free_form_too_large']);
    expect(codes({ k: 'x'.repeat(maxChars) })).toEqual(['free_form_too_large']);
  });

  it('refuses a metadata value past a bound at its field, in validate and create alike', async () => {
    const a = example();
    a.metadata = [
      { key: 'fits', value: { k: values(maxValues - 1) } },
      { key: 'deep', value: { k: nested(maxDepth) } },
      { key: 'many', value: { k: values(maxValues) } },
    ];
    for (const mode of ['validate', 'create'] as const) {
      expect(errorsOf(await check({ payload: a }, mode))).toEqual(['free_form_too_large@metadata.1.value', 'free_form_too_large@metadata.2.value']);
    }
  });

  it('refuses a customer\'s details past a bound, and takes one at the bound', async () => {
    const a = example();
    a.customers[0].details = { legacy: values(maxValues - 1) };
    expect(errorsOf(await check({ payload: a }))).toEqual([]);
    a.customers[0].details = { legacy: 'x'.repeat(maxChars) };
    expect(errorsOf(await check({ payload: a }))).toEqual(['free_form_too_large@customers.0.details']);
  });
});

describe('text the store cannot hold', () => {
  it.each([
    ['a NUL in a name', (a: ReturnType<typeof example>) => (a.customers[0].given_name = 'Ann\u0000e'), 'invalid_character@customers.0.given_name'],
    ['a lone high surrogate', (a: ReturnType<typeof example>) => (a.billing_name = 'Ann \ud800'), 'invalid_character@billing_name'],
    ['a lone low surrogate', (a: ReturnType<typeof example>) => (a.billing_address1 = '\udc00 Road'), 'invalid_character@billing_address1'],
    ['a NUL deep in a free-form value', (a: ReturnType<typeof example>) => (a.metadata = [{ key: 'k', value: { a: [{ b: 'x\u0000' }] } }]), 'invalid_character@metadata.0.value.a.0.b'],
    ['a NUL in a free-form key', (a: ReturnType<typeof example>) => (a.metadata = [{ key: 'k', value: { 'a\u0000': 1 } }]), 'invalid_character@metadata.0.value'],
  ])('%s is invalid_character at its field, in validate and create alike', async (_name, corrupt, expected) => {
    const a = example();
    corrupt(a);
    for (const mode of ['validate', 'create'] as const) {
      expect(errorsOf(await check({ payload: a }, mode))).toContain(expected);
    }
  });

  it('takes a surrogate pair (an emoji) and other control characters', async () => {
    const a = example();
    a.billing_name = 'Ann 😀 \u0001 Road';
    a.metadata = [{ key: 'k', value: { '😀': 'tab\there' } }];
    expect(errorsOf(await check({ payload: a }))).toEqual([]);
  });
});
