import { spawn } from 'node:child_process';
import path from 'node:path';
import { listAllSetAside } from '../../maintenance/setAside';
import { DEFAULT_WORKER_NODE_OPTIONS } from '../../lib/nodeOptions';
import { openRelayBed, RelayBed, writeCompleteEvents } from '../support/outboxEvents';
import { TEST_NATS_URL } from '../support/env';
import { readStream } from '../support/stream';

const MAX_ATTEMPTS = 2;
/** Values in the poison event's payload: more than a relay under the worker's heap cap can read back. */
const VALUES = 4_000_000;

/** One relay in its own process with the worker's heap flags: how it ended. */
function runRelay(url: string): Promise<{ code: number | null; signal: string | null; oom: boolean; ms: number; stderr: string }> {
  const t0 = Date.now();
  const child = spawn(process.execPath, [...DEFAULT_WORKER_NODE_OPTIONS, '--import', 'tsx', path.join(__dirname, '../support/relayProcess.ts')], {
    env: { ...process.env, DATABASE_URL: url, NATS_URL: TEST_NATS_URL, MAX_ATTEMPTS: String(MAX_ATTEMPTS) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => void (stderr += d.toString()));
  child.stdout.resume();
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, oom: /heap out of memory/i.test(stderr), ms: Date.now() - t0, stderr: stderr.slice(0, 300) })));
}

/**
 * An outbox event whose envelope holds millions of values (written to the database as a row the
 * relay reads) kills each relay that reads it back (V8 heap OOM under the worker's heap flags): the
 * leadership goes to the next worker, which died of it too, and no event of any import went out.
 * Its attempts, committed before the read, set it aside after MAX_ATTEMPTS deaths, and the next
 * relay publishes the other accounts' events (taken one by one after a death, so no innocent event
 * of the dead batch is set aside) and exits normally.
 */
describe('outbox relay killed by a poison event (real process, worker heap flags)', () => {
  let bed: RelayBed;
  let others: string[];
  let poisonSeq: number;
  beforeAll(async () => {
    bed = await openRelayBed('k', 'relay-crash');
    // The poison first (the oldest pending event), then two other accounts' events.
    const [poison] = await writeCompleteEvents(bed.t.db, bed.prefix, ['acct-HUGE'], 1);
    await bed.t.db.raw(`UPDATE outbox SET envelope = jsonb_set(envelope, '{data,padding}', (SELECT jsonb_agg('{}'::jsonb) FROM generate_series(1, ?))) WHERE event_id = ?`, [VALUES, poison]);
    poisonSeq = Number(((await bed.t.db('outbox').where({ event_id: poison }).first('seq')) as { seq: string }).seq);
    others = await writeCompleteEvents(bed.t.db, bed.prefix, ['acct-A', 'acct-B'], 2);
  }, 120_000);
  afterAll(async () => {
    await bed.dispose();
  });

  it('sets the event aside after its attempts died with the relay, and the next relay publishes every other event and exits normally', async () => {
    const runs = [];
    for (let i = 0; i < MAX_ATTEMPTS; i++) runs.push(await runRelay(bed.t.url));
    process.stdout.write(`relay runs: ${JSON.stringify(runs)}\n`);
    for (const run of runs) expect(run).toMatchObject({ oom: true });
    expect((await readStream(bed.nc, bed.stream)).length).toBe(0);
    const after = await runRelay(bed.t.url);
    process.stdout.write(`relay runs: ${JSON.stringify([...runs, after])}\n`);
    expect(after).toMatchObject({ code: 0, oom: false });
    expect((await readStream(bed.nc, bed.stream)).map((m) => m.msgId)).toEqual(others);
    const items = await listAllSetAside(bed.t.db, { queue: 'outbox' });
    expect(items).toEqual([expect.objectContaining({ queue: 'outbox', id: poisonSeq, attempts: MAX_ATTEMPTS, held: 0 })]);
    expect(items[0]!.reason).toMatch(/never finished/);
  }, 240_000);
});
