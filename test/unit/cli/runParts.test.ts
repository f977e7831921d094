import { resumeOf } from '../../../cli/migrate/resume';
import { SubmitWindow } from '../../../cli/migrate/window';
import { Batcher } from '../../../cli/reconcile/batches';
import { emptyTotals } from '../../../cli/reconcile/totals';

/**
 * The parts the migrate and reconcile run loops keep beside them (cli/migrate/resume.ts,
 * window.ts, cli/reconcile/batches.ts), each held alone; the loops are held whole by
 * test/integration/migrate*.test.ts and reconcile.test.ts.
 */

describe('migrate: what a re-run does with an account an earlier run saw', () => {
  it.each([
    [undefined, 'create', {}, 'send'],
    ['PROCESSED', 'create', {}, 'skip'],
    ['STAGED', 'stage', {}, 'skip'],
    ['STAGED', 'process', {}, 'send'],
    ['SUBMITTED', 'create', {}, 'follow'],
    ['IN_PROGRESS', 'process', {}, 'follow'],
    ['VALIDATION_FAILED', 'create', {}, 'skip'],
    ['VALIDATION_FAILED', 'create', { retryFailed: true }, 'send'],
    ['FAILED', 'create', {}, 'send'],
    ['NOT_SUBMITTED', 'create', {}, 'send'],
    ['DRY_RUN_SUCCEEDED', 'create', { dryRunTasks: true }, 'skip'],
    ['DRY_RUN_SUCCEEDED', 'create', {}, 'send'],
    ['DRY_RUN_ERRORED', 'create', { dryRunTasks: true }, 'skip'],
    ['DRY_RUN_ERRORED', 'create', { dryRunTasks: true, retryFailed: true }, 'send'],
  ] as const)('%s, %s %j: %s', (prior, mode, opts, expected) => {
    expect(resumeOf(prior, mode, opts)).toBe(expected);
  });
});

describe('migrate: the submitting window', () => {
  it('handles at most `concurrency` at once and waits while the imports followed fill `maxInFlight`', async () => {
    let running = 0;
    let most = 0;
    let following = 3;
    let settled = 0;
    const stop = new AbortController();
    const window = new SubmitWindow({ concurrency: 2, maxInFlight: 4, following: () => following, signal: stop.signal, onSettled: () => settled++ });
    const handle = async () => {
      running++;
      most = Math.max(most, running);
      await new Promise((r) => setTimeout(r, 5));
      running--;
    };
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    await window.submit(async () => {
      await gate;
      await handle();
    }); // 3 followed + 1 being sent: full
    let started = false;
    const blocked = window.submit(async () => {
      started = true;
      await handle();
    });
    await new Promise((r) => setTimeout(r, 60));
    expect(started).toBe(false);
    following = 0;
    await blocked;
    expect(started).toBe(true);
    open();
    for (let i = 0; i < 6; i++) await window.submit(handle);
    await window.drain();
    expect(started).toBe(true);
    expect(most).toBe(2);
    expect(settled).toBe(8);
  });
});

describe('reconcile: the batches of the book', () => {
  const rec = (supplier: string, external: string) => ({ kind: 'account' as const, where: `line ${external}`, supplier, external, digest: `d-${external}`, totals: { ...emptyTotals(), accounts: 1 }, source: null as never });

  it('numbers batches by their first account, one supplier each, the rest in order; a finished batch keeps no digest', () => {
    const batcher = new Batcher(2, (no) => no === 1);
    expect(batcher.add(rec('A', '1'))).toBeNull();
    expect(batcher.add(rec('B', '2'))).toBeNull();
    const full = batcher.add(rec('A', '3'));
    expect(full).toMatchObject({ no: 0, supplier: 'A', items: [{ external: '1', digest: 'd-1' }, { external: '3' }] });
    expect(batcher.add(rec('A', '4'))).toBeNull();
    const rest = batcher.rest();
    expect(rest.map((b) => [b.no, b.supplier])).toEqual([
      [1, 'B'],
      [2, 'A'],
    ]);
    // Batch 1 an earlier run finished: its results are in the state.
    expect(rest[0]!.items[0]).toEqual({ external: '2', where: 'line 2', digest: '', totals: emptyTotals(), source: null });
    expect(batcher.rest()).toEqual([]);
  });
});
