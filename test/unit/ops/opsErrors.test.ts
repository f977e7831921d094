import type { Knex } from 'knex';
import request from 'supertest';
import pino from 'pino';
import Ajv from 'ajv';
import { createOpsApp } from '../../../ops/server';
import { buildOpsOpenApiDocument } from '../../../ops/openapi';

/**
 * The operations page's bad input answered on the API's error path (issue 51): the shared query
 * and body checkers, the shared error middleware, the API's `{detail, code, errors}` shape as the
 * page's own OpenAPI document describes it. Every request here fails before the database.
 */
describe('bad input to the operations page', () => {
  const app = createOpsApp({
    db: {} as Knex,
    log: pino({ level: 'silent' }),
    temporal: { uiUrl: 'http://127.0.0.1:8233', namespace: 'default' },
    deployment: async () => {
      throw new Error('not reached');
    },
  }).callback();
  const doc = buildOpsOpenApiDocument();
  const ajv = new Ajv({ strict: false });
  ajv.addSchema({ ...doc, $id: 'ops' });
  const validationFailed = ajv.getSchema('ops#/components/schemas/QueryValidationFailed')!;
  const parseError = ajv.getSchema('ops#/components/schemas/ParseError')!;

  it('answers an unknown field of POST /api/tranche with validation_error naming it, in the documented shape', async () => {
    const res = await request(app).post('/api/tranche').send({ import_supplier: 'DEMO_ENERGY', external_account_numbers: ['A-1'], colour: 'red' });
    expect(res.status).toBe(400);
    expect(validationFailed(res.body)).toBe(true);
    expect(res.body).toEqual({
      detail: 'The request failed validation.',
      code: 'validation_error',
      errors: [{ detail: 'Unknown field "colour": only documented fields may be sent.', code: 'unknown_field', attr: 'colour' }],
    });
  });

  it('reports every issue of a malformed tranche, with the codes of the API', async () => {
    const res = await request(app).post('/api/tranche').send({ import_supplier: '', external_account_numbers: [7, 'x'.repeat(129)] });
    expect([res.status, res.body.code, validationFailed(res.body)]).toEqual([400, 'validation_error', true]);
    expect(res.body.errors.map((e: { code: string; attr: string }) => `${e.attr} ${e.code}`).sort()).toEqual([
      'external_account_numbers.0 invalid',
      'external_account_numbers.1 max_length',
      'import_supplier blank',
    ]);
    const array = await request(app).post('/api/tranche').send([]);
    expect([array.status, array.body.code, validationFailed(array.body)]).toEqual([400, 'validation_error', true]);
    const unreadable = await request(app).post('/api/tranche').set('content-type', 'application/json').send('{');
    expect([unreadable.status, unreadable.body.code, parseError(unreadable.body)]).toEqual([400, 'parse_error', true]);
  });

  it('reads the tranche within its own JSON bounds: nesting past its shape is 413 before it is parsed', async () => {
    const res = await request(app).post('/api/tranche').set('content-type', 'application/json').send(`{"external_account_numbers":${'['.repeat(6)}${']'.repeat(6)}}`);
    expect([res.status, res.body.code]).toEqual([413, 'payload_too_large']);
  });

  it('answers bad query parameters with validation_error and one issue each', async () => {
    const cases: [string, string[]][] = [
      ['/api/summary?colour=red', ['colour unknown_field']],
      ['/api/summary?hours=0', ['hours min_value']],
      ['/api/summary?hours=73', ['hours max_value']],
      ['/api/summary?hours=abc', ['hours invalid']],
      ['/api/summary?hours=1&hours=2', ['hours invalid']],
      ['/api/summary?colour=red&colour=blue', ['colour unknown_field']],
      ['/api/summary?supplier=' + 'S'.repeat(65), ['supplier max_length']],
      ['/api/errors', ['code required']],
      ['/api/errors?code=', ['code blank']],
      ['/api/errors?code=boom&limit=100000&x=1', ['limit max_value', 'x unknown_field']],
      ['/api/errors?code=boom&after=%25%25%25', ['after invalid']],
      ['/api/builds?x=1', ['x unknown_field']],
      ['/api/imports/S/E?x=1', ['x unknown_field']],
      ['/api/tranche?x=1', ['x unknown_field']],
    ];
    for (const [url, issues] of cases) {
      const res = await (url.startsWith('/api/tranche') ? request(app).post(url).send({}) : request(app).get(url));
      expect([url, res.status, res.body.code, validationFailed(res.body)]).toEqual([url, 400, 'validation_error', true]);
      expect([url, res.body.errors.map((e: { code: string; attr: string }) => `${e.attr} ${e.code}`).sort()]).toEqual([url, issues]);
    }
  });

  it('documents each query from the schema it is checked with, and answers an unsupported method 405 with Allow', async () => {
    const params = (p: string, m: string) => ((doc.paths as Record<string, Record<string, { parameters?: { name: string; required: boolean }[] }>>)[p]![m]!.parameters ?? []).map((x) => `${x.name}${x.required ? '!' : ''}`);
    expect(params('/api/summary', 'get')).toEqual(['supplier', 'hours']);
    expect(params('/api/errors', 'get')).toEqual(['code!', 'supplier', 'after', 'limit']);
    expect(params('/api/imports/{supplier}/{external_account_number}', 'get')).toEqual(['supplier!', 'external_account_number!']);
    const res = await request(app).put('/api/summary');
    expect([res.status, res.body.code, res.headers.allow]).toEqual([405, 'method_not_allowed', 'HEAD, GET']);
  });
});
