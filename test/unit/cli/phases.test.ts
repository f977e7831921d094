import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { Phases, phaseText, timingsText } from '../../../cli/shared/phases';
import { reportPrefixOf } from '../../../cli/shared/report';

describe('phases of a long command (issue 40)', () => {
  it('gives each phase its own count, rate and ETA, and says how long each took', () => {
    let now = 1_000;
    const phases = new Phases(() => now);
    const reading = phases.start('reading the book', 'records', 1000);
    now += 1_000;
    reading.done = 1000;
    phases.end('reading the book');
    const extras = phases.start('extras', 'accounts', 4000);
    now += 2_000;
    extras.done = 1000;
    // Its own rate (500/s over its 2 s), not the run's, and the ETA of what is left of it.
    expect(phaseText(extras, now)).toBe('extras 1000/4000 accounts, 500/s, ETA 6 s');
    expect(phases.active().map((p) => p.name)).toEqual(['extras']);
    phases.endAll();
    expect(phases.timings()).toEqual([
      { phase: 'reading the book', unit: 'records', count: 1000, ms: 1000 },
      { phase: 'extras', unit: 'accounts', count: 1000, ms: 2000 },
    ]);
    expect(timingsText(phases.timings())).toBe('reading the book 1000 records 1.0 s · extras 1000 accounts 2.0 s');
  });

  it('says the ETA is unknown while nothing is done or the total is not known', () => {
    let now = 0;
    const phases = new Phases(() => now);
    const p = phases.start('digests', 'accounts');
    now = 500;
    expect(phaseText(p, now)).toBe('digests 0 accounts, 0/s, ETA ?');
    p.total = 10;
    expect(phaseText(p, now)).toBe('digests 0/10 accounts, 0/s, ETA ?');
  });
});

describe('the report prefix', () => {
  it('takes a prefix ending .json or .csv as the one without it (not x.json.json, x.json.csv)', () => {
    expect(reportPrefixOf('/tmp/x.json')).toBe('/tmp/x');
    expect(reportPrefixOf('/tmp/x.CSV')).toBe('/tmp/x');
    expect(reportPrefixOf('/tmp/night-1')).toBe('/tmp/night-1');
    expect(reportPrefixOf('/tmp/book.ndjson.report')).toBe('/tmp/book.ndjson.report');
  });
});

describe('the API client and the run\'s signal', () => {
  it('lifts the listener cap of the signal every request in flight listens to (no MaxListenersExceededWarning)', () => {
    // In a node of its own: jest's AbortSignal is not Node's, and never warns.
    const api = path.join(__dirname, '../../../cli/shared/api.ts');
    const code = `
      const { ApiClient } = require(${JSON.stringify(api)});
      const stop = new AbortController();
      const client = new ApiClient({ apiUrl: 'http://127.0.0.1:9', connections: 16, maxRetries: 0, backoffBaseMs: 1, backoffCapMs: 1, signal: stop.signal });
      // As many requests and backoffs in flight as a reconcile with --concurrency 4 has.
      for (let i = 0; i < 24; i++) stop.signal.addEventListener('abort', () => undefined);
      setTimeout(() => client.close(), 50);`;
    const run = spawnSync(process.execPath, ['--require', 'tsx/cjs', '-e', code], { encoding: 'utf8', timeout: 60_000 });
    expect(run.status).toBe(0);
    expect(run.stderr).not.toContain('MaxListenersExceededWarning');
  });
});

describe('plain progress by phase', () => {
  it('says when each phase ends, with its count and time, and names the running ones with their own ETA', async () => {
    const { startProgress } = await import('../../../cli/shared/progress');
    const phases = new Phases();
    const digests = phases.start('digests', 'accounts', 10);
    const lines: string[] = [];
    const progress = startProgress('plain', { total: () => 10, done: () => digests.done, counts: () => ({ matched: digests.done }), following: () => 0, outage: () => null, phases: () => phases.all() }, (l) => lines.push(l));
    digests.done = 10;
    phases.end('digests');
    const totals = phases.start('totals', 'suppliers', 1);
    totals.done = 1;
    phases.end('totals');
    progress.stop();
    expect(lines).toEqual([expect.stringMatching(/^phase done: digests, 10 accounts in \d+\.\d s$/), expect.stringMatching(/^phase done: totals, 1 suppliers in \d+\.\d s$/)]);
  });
});
