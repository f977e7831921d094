import { createTestDatabase, TestDatabase } from '../support/db';
import { startSilentProxy, SilentProxy } from '../support/silentProxy';
import { DatabaseWatchdog } from '../../db/watchdog';
import { eventually } from '../support/eventually';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The worker's PostgreSQL watchdog (db/watchdog.ts) on the real server: quiet while PostgreSQL
 * answers, and once it stops answering (a silent link: nothing closed, nothing answered) it says
 * so once, no sooner than the configured time. Each positive check waits for its condition with
 * a bound; no upper wall-clock bound is asserted (a loaded machine delays timers, not the logic).
 */
describe('the PostgreSQL watchdog', () => {
  let t: TestDatabase;
  let proxy: SilentProxy;
  let url: string;
  const dogs: DatabaseWatchdog[] = [];

  beforeAll(async () => {
    t = await createTestDatabase();
    const u = new URL(t.url);
    proxy = await startSilentProxy(u.hostname, Number(u.port || 5432));
    u.host = proxy.address;
    url = u.toString();
  });
  afterAll(async () => {
    for (const d of dogs) d.stop();
    proxy.heal();
    await proxy.close();
    await t.drop();
  });

  it('stays quiet while PostgreSQL answers, and fires once when it falls silent', async () => {
    const fired: { silentMs: number; at: number; lastError: string | null }[] = [];
    const dog = new DatabaseWatchdog({ databaseUrl: url, unreachableMs: 1500, probeIntervalMs: 250, onUnreachable: (silentMs, lastError) => fired.push({ silentMs, lastError, at: Date.now() }) });
    dogs.push(dog);
    dog.start();
    await sleep(3000);
    expect(fired).toEqual([]);
    expect(dog.seemsReachable()).toBe(true);

    proxy.silence();
    const silentAt = Date.now();
    await eventually(async () => fired.length > 0, 30_000, 50);
    // Once: a while later it has not fired again.
    await sleep(1000);
    expect(fired).toHaveLength(1);
    const f = fired[0]!;
    expect(f.silentMs).toBeGreaterThan(1500);
    // No sooner than the configured time after the last good probe (at most one interval before the silence).
    expect(f.at - silentAt).toBeGreaterThanOrEqual(1500 - 250);
    expect(f.lastError).toEqual(expect.stringMatching(/timeout|terminated|Connection/i));
    proxy.heal();
  });

  it('says PostgreSQL no longer seems reachable two probes after it fell silent, long before it fires', async () => {
    const fired: number[] = [];
    const dog = new DatabaseWatchdog({ databaseUrl: url, unreachableMs: 8000, probeIntervalMs: 250, onUnreachable: () => fired.push(Date.now()) });
    dogs.push(dog);
    dog.start();
    await eventually(async () => dog.seemsReachable(), 30_000, 50);
    expect(dog.seemsReachable()).toBe(true);
    proxy.silence();
    // Two probe intervals and a second after the last good probe (the e-mail delivery stops
    // heartbeating then: activities/emails/customerEmails.ts), while the worker stays.
    await eventually(async () => !dog.seemsReachable(), 30_000, 50);
    expect(fired).toEqual([]);
    proxy.heal();
    await eventually(async () => dog.seemsReachable(), 30_000, 50);
    expect(dog.seemsReachable()).toBe(true);
    dog.stop();
  });

  it('does nothing when turned off (0)', async () => {
    let fired = 0;
    const dog = new DatabaseWatchdog({ databaseUrl: 'postgres://nobody@127.0.0.1:1/none', unreachableMs: 0, onUnreachable: () => fired++ });
    dogs.push(dog);
    dog.start();
    await sleep(500);
    expect(fired).toBe(0);
    expect(dog.seemsReachable()).toBe(true);
  });
});
