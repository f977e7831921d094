import type { TSchema } from '@sinclair/typebox';
import { buildOpenApiDocument } from '../../../api/openapi';
import { queryChecker, ValidationError } from '../../../http/validation';
import { importedAccountOperation } from '../../../imports/http/importedAccount';
import { listingOperations } from '../../../imports/http/listings';
import { transferStatusOperation } from '../../../imports/http/transferStatus';
import { meterPointStatusesOperation } from '../../../registration/http/meterPointStatuses';
import { decodeCursor, encodeCursor } from '../../../imports/listing/params';
import { sendRegistrationFlowsOperation } from '../../../registration/http/sendFlows';
import { transactionsOperation } from '../../../topUps/http/transactions';

// The API's query parameters, each operation's `query` schema read by the one query checker
// (http/validation.ts queryChecker, run by http/mount.ts before the handler): what a query reads
// as, and every issue of a bad one as `<code>@<attr>`, sorted.

type Query = Record<string, string | string[] | undefined>;

/** The values the operation's checker reads from `query`, or its issues; a ValidationError is 400 validation_error. */
function check(schema: TSchema | undefined, query: Query): { values: Record<string, unknown> } | { issues: string[] } {
  const checker = queryChecker<Record<string, unknown>>(schema!);
  let values: Record<string, unknown>;
  try {
    values = checker(query);
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    expect([err.status, err.code]).toEqual([400, 'validation_error']);
    return { issues: err.errors.map((i) => `${i.code}@${i.attr}`).sort() };
  }
  return { values: { ...values } };
}

describe('the listings query (limit, after)', () => {
  const listing = (q: Query) => check(listingOperations[0]!.query, q);

  it('round-trips a cursor and refuses anything else', () => {
    expect(decodeCursor(encodeCursor('12345'))).toBe('12345');
    for (const bad of ['', 'abc', Buffer.from('ip:0').toString('base64url'), Buffer.from('ip:-1').toString('base64url'), Buffer.from('ip:1 OR 1=1').toString('base64url')]) {
      expect(decodeCursor(bad)).toBeNull();
    }
  });

  it('accepts no parameters, a limit, and a limit with a cursor', () => {
    expect(listing({})).toEqual({ values: {} });
    expect(listing({ limit: '10000', after: encodeCursor('7') })).toEqual({ values: { limit: 10000, after: encodeCursor('7') } });
    expect(listing({ limit: '0010' })).toEqual({ values: { limit: 10 } });
  });

  it('reports every bad parameter with its code', () => {
    expect(listing({ limit: '0', after: 'x', offset: '3' })).toEqual({ issues: ['invalid@after', 'min_value@limit', 'unknown_field@offset'] });
  });

  it.each<[string, Query, string[]]>([
    ['a limit of 0', { limit: '0' }, ['min_value@limit']],
    ['a negative limit', { limit: '-1' }, ['min_value@limit']],
    ['a limit over the page', { limit: '10001' }, ['max_value@limit']],
    ['a limit of ten digits', { limit: '1234567890' }, ['max_value@limit']],
    ['a limit of sixteen digits', { limit: '1234567890123456' }, ['invalid@limit']],
    ['a limit in words', { limit: 'ten' }, ['invalid@limit']],
    ['a fractional limit', { limit: '1.5' }, ['invalid@limit']],
    ['an empty limit', { limit: '' }, ['invalid@limit']],
    ['a repeated limit', { limit: ['1', '2'] }, ['invalid@limit']],
    ['a cursor of no page', { after: 'bm90LWEtY3Vyc29y' }, ['invalid@after']],
    ['an empty cursor', { after: '' }, ['invalid@after']],
    ['a repeated cursor', { after: [encodeCursor('7'), encodeCursor('8')] }, ['invalid@after']],
    ['an unknown parameter', { page: '2' }, ['unknown_field@page']],
    ['a repeated unknown parameter', { page: ['1', '2'] }, ['unknown_field@page']],
    ['a parameter named __proto__', JSON.parse('{"__proto__":"1"}') as Query, ['unknown_field@__proto__']],
  ])('refuses %s', (_name, query, issues) => {
    expect(listing(query)).toEqual({ issues });
  });
});

describe('the transactions/create query flags', () => {
  const flags = (q: Query) => check(transactionsOperation.query, q);

  it('reads no flag as absent (the handler defaults both to true, as the platform does)', () => {
    expect(flags({})).toEqual({ values: {} });
  });

  it('reads true/false/1/0 in any case', () => {
    expect(flags({ check_previously_added: 'False', force_add_to_current_statement: '0' })).toEqual({ values: { check_previously_added: false, force_add_to_current_statement: false } });
    expect(flags({ check_previously_added: 'TRUE', force_add_to_current_statement: '1' })).toEqual({ values: { check_previously_added: true, force_add_to_current_statement: true } });
  });

  it('refuses other values, an empty one, repeated flags and unknown parameters', () => {
    expect(flags({ check_previously_added: 'yes', force_add_to_current_statement: ['true', 'false'], dry: '1' })).toEqual({
      issues: ['invalid@check_previously_added', 'invalid@force_add_to_current_statement', 'unknown_field@dry'],
    });
    expect(flags({ check_previously_added: '' })).toEqual({ issues: ['invalid@check_previously_added'] });
    expect(flags({ dry: ['1', '0'] })).toEqual({ issues: ['unknown_field@dry'] });
  });
});

describe('the send-registration-flows query', () => {
  const registration = (q: Query) => check(sendRegistrationFlowsOperation.query, q);

  it('takes no date (the earliest valid date) or a real YYYY-MM-DD date', () => {
    expect(registration({})).toEqual({ values: {} });
    expect(registration({ supply_start_date: '2026-12-01' })).toEqual({ values: { supply_start_date: '2026-12-01' } });
  });

  it.each([['2026-02-30'], ['2026-12-1'], ['01/12/2026'], [''], ['2026-12-01T00:00:00Z']])('refuses %j with invalid_date', (v) => {
    expect(registration({ supply_start_date: v })).toEqual({ issues: ['invalid_date@supply_start_date'] });
  });

  it('refuses a repeated supply_start_date with invalid_date', () => {
    expect(registration({ supply_start_date: ['2026-12-01', '2026-12-02'] })).toEqual({ issues: ['invalid_date@supply_start_date'] });
  });

  it('refuses unknown parameters with unknown_field, reporting every issue', () => {
    expect(registration({ supply_start: '2026-12-01', supply_start_date: 'x' })).toEqual({ issues: ['invalid_date@supply_start_date', 'unknown_field@supply_start'] });
  });
});

describe("the imported account's query (reveal)", () => {
  const reveal = (q: Query) => check(importedAccountOperation.query, q);

  it('takes nothing, or reveal=bank_details', () => {
    expect(reveal({})).toEqual({ values: {} });
    expect(reveal({ reveal: 'bank_details' })).toEqual({ values: { reveal: 'bank_details' } });
  });

  it.each<[string, Query, string[]]>([
    ['another value', { reveal: 'everything' }, ['invalid_choice@reveal']],
    ['an empty value', { reveal: '' }, ['invalid_choice@reveal']],
    ['a repeated reveal', { reveal: ['bank_details', 'bank_details'] }, ['invalid_choice@reveal']],
    ['an unknown parameter beside it', { reveal: 'bank_details', x: '1' }, ['unknown_field@x']],
    ['an unknown parameter alone, repeated', { x: ['1', '2'] }, ['unknown_field@x']],
  ])('refuses %s', (_name, query, issues) => {
    expect(reveal(query)).toEqual({ issues });
  });
});

describe('the platform GET operations of one account: no query parameters', () => {
  it.each([
    ['transfer status', transferStatusOperation.query],
    ['meter point statuses', meterPointStatusesOperation.query],
  ])('%s: takes none, answers each one unknown_field, given once or more', (_name, schema) => {
    expect(check(schema, {})).toEqual({ values: {} });
    expect(check(schema, { verbose: '1' })).toEqual({ issues: ['unknown_field@verbose'] });
    expect(check(schema, { verbose: ['1', '2'], a: '' })).toEqual({ issues: ['unknown_field@a', 'unknown_field@verbose'] });
  });
});

describe("the API document's query parameters, from the schemas the checker reads", () => {
  const doc = buildOpenApiDocument() as { paths: Record<string, Record<string, { parameters?: { name: string; in: string; required: boolean; description?: string; schema: Record<string, unknown> }[] }>> };
  const params = (path: string, method: string) => (doc.paths[path]![method]!.parameters ?? []).map((p) => ({ name: p.name, in: p.in, required: p.required, schema: p.schema, described: typeof p.description === 'string' }));

  it('documents each operation its query parameters after its path parameters', () => {
    expect(params('/v1/data-import/all-account-import-processes/{import_supplier_code}/', 'get').slice(1)).toEqual([
      { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 10000 }, described: true },
      { name: 'after', in: 'query', required: false, schema: { type: 'string', format: 'import-process-cursor' }, described: true },
    ]);
    expect(params('/v1/data-import/transactions/create/', 'post')).toEqual([
      { name: 'check_previously_added', in: 'query', required: false, schema: { type: 'boolean', default: true }, described: true },
      { name: 'force_add_to_current_statement', in: 'query', required: false, schema: { type: 'boolean', default: true }, described: true },
    ]);
    expect(params('/v1/data-import/send-registration-flows/{import_supplier_code}/{external_account_number}/', 'post').map((p) => [p.name, p.in])).toEqual([
      ['import_supplier_code', 'path'],
      ['external_account_number', 'path'],
      ['supply_start_date', 'query'],
    ]);
    expect(params('/v2/data-import/accounts/{import_supplier_code}/{external_account_number}/account/', 'get')[2]).toEqual({
      name: 'reveal',
      in: 'query',
      required: false,
      schema: { type: 'string', enum: ['bank_details'] },
      described: true,
    });
  });
});
