import pg from 'pg';
import { createTestDatabase, TestDatabase } from '../support/db';

/**
 * The roll-ups behind the operations page (migrations 0008 and 0012): counted at commit, in the
 * writer's own slot, and always summing to what the source tables hold.
 */
describe('operations roll-ups', () => {
  let t: TestDatabase;
  const clients: pg.Client[] = [];

  /** A connection of its own: its own backend, so its own roll-up slot. */
  async function connection(): Promise<pg.Client> {
    const c = new pg.Client({ connectionString: t.url });
    await c.connect();
    clients.push(c);
    return c;
  }

  beforeAll(async () => {
    t = await createTestDatabase();
    await t.db('import_suppliers').insert({ code: 'ROLL' });
  });
  afterAll(async () => {
    for (const c of clients) await c.end().catch(() => undefined);
    await t.drop();
  });

  async function insertImports(n: number, prefix: string): Promise<string[]> {
    const now = new Date();
    const rows = await t.db('import_processes')
      .insert(
        Array.from({ length: n }, (_, i) => ({
          import_supplier: 'ROLL',
          external_account_number: `${prefix}${i}`,
          status: 'PENDING',
          payload: {},
          schedule_window_start: now,
          schedule_window_end: now,
          workflow_id: `w-${prefix}${i}`,
          latest_event: {},
        })),
      )
      .returning('id');
    return rows.map((r: { id: string }) => String(r.id));
  }

  /** What the page reads (sum over slots) and what the source table says, per status. */
  async function countsAndTruth(): Promise<{ counts: Record<string, number>; truth: Record<string, number>; processedMinutes: number; processed: number }> {
    const counts = Object.fromEntries(
      ((await t.db('ops_counts').where({ kind: 'import', import_supplier: 'ROLL' }).select('status').sum({ n: 'n' }).groupBy('status').havingRaw('sum(n) <> 0')) as { status: string; n: string }[]).map((r) => [r.status, Number(r.n)]),
    );
    const truth = Object.fromEntries(
      ((await t.db('import_processes').where({ import_supplier: 'ROLL' }).select('status').count({ n: '*' }).groupBy('status')) as { status: string; n: string }[]).map((r) => [r.status, Number(r.n)]),
    );
    const processedMinutes = Number((await t.db('ops_processed_minutes').where({ import_supplier: 'ROLL' }).sum({ n: 'processed' }).first())?.n ?? 0);
    return { counts, truth, processedMinutes, processed: truth.PROCESSED ?? 0 };
  }

  const toProcessed = `UPDATE import_processes SET status = 'PROCESSED', modified_at = now() WHERE id = $1`;

  it('holds no counter row while the transaction that moved an import is still open', async () => {
    // Two imports whose ids share their slot under migration 0008 (id mod 16, and mod 4 per minute).
    const ids = await insertImports(17, 'hold-');
    const x = ids[0]!;
    const y = ids.find((id) => id !== x && BigInt(id) % 16n === BigInt(x) % 16n)!;
    expect(y).toBeDefined();
    const a = await connection();
    const b = await connection();
    await a.query('BEGIN');
    await a.query(toProcessed, [x]);
    // Under migration 0008 the trigger had locked the counter rows of both imports' statuses (and
    // the minute's PROCESSED row) at this point, until A's COMMIT: B would wait for it.
    await b.query(`SET lock_timeout = '2s'`);
    await b.query('BEGIN');
    await b.query(toProcessed, [y]);
    await expect(b.query('COMMIT')).resolves.toBeDefined();
    // Nothing counted for A yet, and B's import is.
    expect((await countsAndTruth()).counts).toEqual({ PENDING: 16, PROCESSED: 1 });
    await a.query('COMMIT');
    const after = await countsAndTruth();
    expect(after.counts).toEqual(after.truth);
    expect(after.processedMinutes).toBe(after.processed);
  });

  it('counts nothing for a transaction that rolls back', async () => {
    const before = await countsAndTruth();
    const [x] = await insertImports(1, 'rollback-');
    const a = await connection();
    await a.query('BEGIN');
    await a.query(toProcessed, [x]);
    await a.query(`UPDATE import_processes SET status = 'ERRORED', latest_error = '{"code":"boom"}' WHERE id = $1`, [x]);
    await a.query('ROLLBACK');
    const after = await countsAndTruth();
    expect(after.counts).toEqual({ ...before.counts, PENDING: (before.counts.PENDING ?? 0) + 1 });
    expect(after.counts).toEqual(after.truth);
  });

  it('sums to the source table after concurrent moves from many connections, several per transaction, and deletes', async () => {
    const ids = await insertImports(60, 'mix-');
    const conns = await Promise.all(Array.from({ length: 6 }, () => connection()));
    await Promise.all(
      conns.map(async (c, k) => {
        for (let i = k; i < ids.length; i += conns.length) {
          await c.query('BEGIN');
          await c.query(`UPDATE import_processes SET status = 'IN_PROGRESS' WHERE id = $1`, [ids[i]]);
          if (i % 5 === 0) await c.query(`UPDATE import_processes SET status = 'ERRORED', latest_error = '{"code":"x"}' WHERE id = $1`, [ids[i]]);
          else await c.query(toProcessed, [ids[i]]);
          if (i % 7 === 0) await c.query('DELETE FROM import_processes WHERE id = $1', [ids[i]]);
          await c.query('COMMIT');
        }
      }),
    );
    const after = await countsAndTruth();
    expect(after.counts).toEqual(after.truth);
    // A deleted PROCESSED import keeps its place in the per-minute history (as under 0008).
    expect(after.processedMinutes).toBeGreaterThanOrEqual(after.processed);

    // The counts are those a full rebuild computes.
    await t.db.raw('SELECT ops_rebuild_rollups()');
    expect((await countsAndTruth()).counts).toEqual(after.counts);
  });
});
