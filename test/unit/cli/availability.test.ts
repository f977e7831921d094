import { ApiUnavailableError, Availability, OUTAGE_AFTER_5XX } from '../../../cli/shared/availability';
import { outageText } from '../../../cli/shared/progress';

/** The outage gate of `data-import migrate`, with a scripted readiness probe. */

function gate(probe: () => Promise<string | null>, timeoutMs: number | null = null) {
  const controller = new AbortController();
  const lines: string[] = [];
  let gaveUp: ApiUnavailableError | null = null;
  const a = new Availability({ probe, probeBaseMs: 10, probeCapMs: 40, timeoutMs, signal: controller.signal, log: (l) => lines.push(l), onGiveUp: (e) => (gaveUp = e), random: () => 0.5 });
  return { a, lines, controller, gaveUp: () => gaveUp };
}

describe('Availability', () => {
  it('treats a 5xx among answers as the request\'s own failure, and the third in a row as an outage', () => {
    const { a } = gate(async () => null);
    expect(a.failed('HTTP 500', 'http')).toBe(false);
    a.answered();
    for (let i = 1; i < OUTAGE_AFTER_5XX; i++) expect(a.failed('HTTP 503', 'http')).toBe(false);
    expect(a.failed('HTTP 503', 'http')).toBe(true);
    expect(a.current()).toMatchObject({ reason: 'HTTP 503' });
  });

  it('holds every request while the API is down and lets them go once the probe is answered', async () => {
    const answers = ['ECONNREFUSED', 'readyz answered 503', null];
    let probes = 0;
    const { a, lines } = gate(async () => answers[probes++] ?? null);
    await a.admit();
    expect(a.failed('ECONNREFUSED', 'transport')).toBe(true);
    let admitted = 0;
    const waiting = [a.admit(), a.admit()].map((p) => p.then(() => admitted++));
    await new Promise((r) => setTimeout(r, 5));
    expect(admitted).toBe(0);
    await Promise.all(waiting);
    expect(probes).toBe(3);
    expect(a.current()).toBeNull();
    expect(a.stats.count).toBe(1);
    expect(lines[0]).toMatch(/^API unavailable since \d\d:\d\d:\d\d \(ECONNREFUSED\)/);
    expect(lines[1]).toMatch(/^API answers again after/);
  });

  it('gives up after the outage timeout: waiting requests are rejected with api_unavailable', async () => {
    const g = gate(async () => 'ECONNREFUSED', 100);
    g.a.failed('ECONNREFUSED', 'transport');
    await expect(g.a.admit()).rejects.toMatchObject({ code: 'api_unavailable' });
    expect(g.gaveUp()).toBeInstanceOf(ApiUnavailableError);
    await expect(g.a.admit()).rejects.toBeInstanceOf(ApiUnavailableError);
  });

  it('a run stopped during an outage leaves no timer behind (the process can exit)', async () => {
    const g = gate(async () => 'ECONNREFUSED', 30 * 60_000);
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timers();
    g.a.failed('ECONNREFUSED', 'transport');
    const waiting = g.a.admit();
    expect(timers()).toBeGreaterThan(before);
    g.controller.abort();
    await expect(waiting).rejects.toThrow();
    expect(timers()).toBe(before);
  });

  it('shows the outage on the progress line', () => {
    const since = new Date(2026, 0, 1, 12, 1, 3).getTime();
    expect(outageText({ since, reason: 'ECONNREFUSED', nextProbeAt: since + 8000 }, since)).toBe('API unavailable since 12:01:03 (ECONNREFUSED) — retrying in 8 s');
    expect(outageText(null)).toBe('');
  });
});
