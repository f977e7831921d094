import fs from 'node:fs';
import path from 'node:path';
import { accountDigest, canonicalAccount, canonicalDateTime, canonicalJson } from '../../../account/canonical';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function example(): Json {
  return JSON.parse(fs.readFileSync(path.join(__dirname, '../../../examples/account-dual-fuel.json'), 'utf8'));
}

describe('the canonical form of an Account', () => {
  it('puts phone numbers in E.164 and postcodes in upper case with one space, as the validator does', () => {
    const a = example();
    a.billing_postcode = 'ls14dy';
    a.supply_addresses[0].supply_postcode = ' ls1  4dy ';
    a.supply_addresses[0].property_administrators = [{ given_name: 'A', family_name: 'B', mobile: '07911 123457' }];
    const c = canonicalAccount(a);
    expect(c.customers[0].mobile).toBe('+447911123456');
    expect(c.customers[0].landline).toBe('+442079460123');
    // An empty string is an unused field: kept.
    expect(c.customers[1].landline).toBe('');
    expect(c.billing_postcode).toBe('LS1 4DY');
    expect(c.supply_addresses[0].supply_postcode).toBe('LS1 4DY');
    expect(c.supply_addresses[0].property_administrators[0].mobile).toBe('+447911123457');
  });

  it('leaves a value it cannot normalise as it is (such an account is refused on the way in)', () => {
    const a = example();
    a.customers[0].mobile = 'not a phone';
    a.billing_postcode = 'NOPE';
    const c = canonicalAccount(a);
    expect(c.customers[0].mobile).toBe('not a phone');
    expect(c.billing_postcode).toBe('NOPE');
  });

  it('writes date-times in UTC to the millisecond, as PostgreSQL gives them back', () => {
    expect(canonicalDateTime('2026-06-14T09:31:00Z')).toBe('2026-06-14T09:31:00Z');
    expect(canonicalDateTime('2026-06-14T10:31:00+01:00')).toBe('2026-06-14T09:31:00Z');
    expect(canonicalDateTime('2026-06-14T10:31:00+0100')).toBe('2026-06-14T09:31:00Z');
    expect(canonicalDateTime('2026-06-14T09:31:00.120Z')).toBe('2026-06-14T09:31:00.120Z');
    expect(canonicalDateTime('2026-06-14T09:31:00.000Z')).toBe('2026-06-14T09:31:00Z');
    // Microseconds rounded (PostgreSQL), then milliseconds kept (node-pg).
    expect(canonicalDateTime('2026-06-14T09:31:00.1234567Z')).toBe('2026-06-14T09:31:00.123Z');
    expect(canonicalDateTime('2026-06-14T09:31:00.9999999Z')).toBe('2026-06-14T09:31:01Z');
    expect(canonicalDateTime('2026-12-31T23:30:00-01:00')).toBe('2027-01-01T00:30:00Z');
    expect(canonicalDateTime('garbage')).toBe('garbage');
  });

  it('omits nulls and empty optional arrays, keeps the required arrays even when empty', () => {
    const a = example();
    a.unknown_occupier = null;
    a.notes = [];
    a.customers[0].psr = [];
    a.supply_addresses[0].meter_points[0].meters[0].registers = [];
    const c = canonicalAccount(a);
    expect('unknown_occupier' in c).toBe(false);
    expect('notes' in c).toBe(false);
    expect('psr' in c.customers[0]).toBe(false);
    expect('registers' in c.supply_addresses[0].meter_points[0].meters[0]).toBe(false);
    const b = canonicalAccount({ ...example(), customers: [], unknown_occupier: true });
    expect(b.customers).toEqual([]);
  });

  it('keeps a free-form metadata value whole (its nulls and empty arrays are data), keys sorted', () => {
    const a = example();
    a.metadata = [{ key: 'k', value: { z: null, a: [], m: { y: 1, b: 2 } } }];
    const c = canonicalAccount(a);
    expect(c.metadata[0].value).toEqual({ z: null, a: [], m: { y: 1, b: 2 } });
    expect(canonicalJson(c.metadata[0].value)).toBe('{"a":[],"m":{"b":2,"y":1},"z":null}');
  });

  it('keeps decimals, dates and strings exactly as sent', () => {
    const a = example();
    a.transfer_balance = '-0.50';
    a.billing_name = '  Zoë Ångström  ';
    const c = canonicalAccount(a);
    expect(c.transfer_balance).toBe('-0.50');
    expect(c.billing_name).toBe('  Zoë Ångström  ');
    expect(c.supply_addresses[0].meter_points[0].supply_start_date).toBe(a.supply_addresses[0].meter_points[0].supply_start_date);
  });

  it('is pure and idempotent', () => {
    const a = example();
    const before = JSON.stringify(a);
    const c = canonicalAccount(a);
    expect(JSON.stringify(a)).toBe(before);
    expect(canonicalJson(canonicalAccount(c))).toBe(canonicalJson(c));
  });

  it('digests the canonical form: key order and the normalisation do not change it, any value does', () => {
    const a = example();
    const d = accountDigest(a);
    expect(d).toMatch(/^sha256:[0-9a-f]{64}$/);
    const reordered = Object.fromEntries(Object.entries(a).reverse());
    expect(accountDigest(reordered)).toBe(d);
    const normalised = example();
    normalised.customers[0].mobile = '+447911123456';
    normalised.notes = [...(normalised.notes ?? [])];
    expect(accountDigest(normalised)).toBe(d);
    const changed = example();
    changed.ledgers[0].ledger_balance = '-55.21';
    expect(accountDigest(changed)).not.toBe(d);
    const decimalText = example();
    decimalText.ledgers[0].ledger_balance = `${decimalText.ledgers[0].ledger_balance}0`;
    expect(accountDigest(decimalText)).not.toBe(d);
  });
});

describe('the canonical JSON', () => {
  it('sorts keys by UTF-16 code units, index-like keys too, and the digest follows it', () => {
    expect(canonicalJson({ b: 1, 10: 2, 2: 3, a: { y: [1, { d: 1, c: 2 }], x: null } })).toBe('{"10":2,"2":3,"a":{"x":null,"y":[1,{"c":2,"d":1}]},"b":1}');
    const a = example();
    a.metadata = [{ key: 'k', value: { b: 1, 10: 2, 2: 3 } }];
    const b = example();
    b.metadata = [{ key: 'k', value: { 2: 3, b: 1, 10: 2 } }];
    expect(accountDigest(a)).toBe(accountDigest(b));
    expect(accountDigest(a)).not.toBe(accountDigest(example()));
  });

  it('digests with JSON.stringify exactly what canonicalJson writes when no key is index-like', () => {
    const crypto = require('node:crypto') as typeof import('node:crypto'); // eslint-disable-line @typescript-eslint/no-require-imports
    const a = example();
    const expected = `sha256:${crypto.createHash('sha256').update(canonicalJson(canonicalAccount(a)), 'utf8').digest('hex')}`;
    expect(accountDigest(a)).toBe(expected);
    a.metadata = [{ key: 'k', value: { 7: 'x', a: 'y' } }];
    expect(accountDigest(a)).toBe(`sha256:${crypto.createHash('sha256').update(canonicalJson(canonicalAccount(a)), 'utf8').digest('hex')}`);
  });
});
