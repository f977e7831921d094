import { createTestDatabase, TestDatabase } from '../support/db';

describe('database migrations', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(async () => {
    await t.drop();
  });

  it('creates the core tables with the unique import key', async () => {
    for (const table of ['import_suppliers', 'import_processes', 'outbox', 'accounts']) {
      expect(await t.db.schema.hasTable(table)).toBe(true);
    }
    await t.db('import_suppliers').insert({ code: 'S1' });
    const row = {
      import_supplier: 'S1',
      external_account_number: 'X1',
      status: 'PENDING',
      payload: {},
      schedule_window_start: new Date(),
      schedule_window_end: new Date(),
      workflow_id: 'w',
      latest_event: {},
    };
    await t.db('import_processes').insert(row);
    await expect(t.db('import_processes').insert(row)).rejects.toMatchObject({ code: '23505' });
  });
});
