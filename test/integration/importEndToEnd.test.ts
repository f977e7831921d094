import request from 'supertest';
import { eventually, startStack, Stack } from '../support/stack';
import { uniqueAccount } from '../support/fixtures';
import { readStream } from '../support/stream';

describe('an import end to end on the real servers', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack();
  });
  afterAll(async () => {
    await s.stop();
  });

  it('creates the example account, reaches PROCESSED and publishes its complete event once', async () => {
    const ext = s.ext('E2E-1');
    const account = uniqueAccount(ext);
    const res = await s.request().post('/v2/data-import/accounts/').send(account);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ warnings: expect.any(Array) });

    const record = await eventually(async () => {
      const r = await s.request().get(`/v2/data-import/accounts/DEMO_ENERGY/${ext}/`);
      return r.body.status === 'PROCESSED' ? r.body : undefined;
    });
    expect(record).toEqual({
      status: 'PROCESSED',
      kraken_identifier: expect.stringMatching(/^A-[0-9A-F]{8}$/),
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/),
      modified_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/),
      latest_event: { event: 'EVENT_ACCOUNT_IMPORT_PROCESS_PROCESSED', occurred_at: expect.any(String), data: null },
      latest_error: null,
    });

    const events = await eventually(async () => {
      const all = await readStream(s.nc, s.stream, `${s.subjectPrefix}.data_import.>`);
      return all.some((e) => e.envelope.type === 'data_import.import_process.post_import.completed') ? all : undefined;
    });
    const complete = events.filter((e) => e.subject === `${s.subjectPrefix}.data_import.import_process.complete.v1`);
    expect(complete).toHaveLength(1);
    expect(complete[0]!.msgId).toBe(complete[0]!.envelope.id);
    expect(complete[0]!.envelope).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      type: 'data_import.import_process.complete',
      version: 'v1',
      occurred_at: expect.any(String),
      source: 'data-import',
      data: { resource_type: 'account', external_identifier: ext, identifier: record.kraken_identifier },
    });
  });

  it('answers not_found for an unknown import process', async () => {
    const r = await s.request().get('/v2/data-import/accounts/DEMO_ENERGY/NOPE/');
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ detail: expect.any(String), code: 'not_found' });
  });
});
