import { TokenBucketLimiter } from '../../../http/middleware/rateLimit';

describe('token bucket limiter', () => {
  it('allows the burst, then refuses with the seconds until the next token', () => {
    let now = 0;
    const l = new TokenBucketLimiter({ perMinute: 60, burst: 3, now: () => now });
    expect([l.take('A'), l.take('A'), l.take('A')].map((r) => r.ok)).toEqual([true, true, true]);
    expect(l.take('A')).toEqual({ ok: false, retryAfterSeconds: 1 });
    now += 1000;
    expect(l.take('A').ok).toBe(true);
    expect(l.take('A').ok).toBe(false);
  });

  it('keeps one bucket per organisation', () => {
    const l = new TokenBucketLimiter({ perMinute: 1, burst: 1, now: () => 0 });
    expect(l.take('A').ok).toBe(true);
    expect(l.take('A')).toEqual({ ok: false, retryAfterSeconds: 60 });
    expect(l.take('B').ok).toBe(true);
  });

  it('never refills past the burst', () => {
    let now = 0;
    const l = new TokenBucketLimiter({ perMinute: 600, burst: 2, now: () => now });
    now += 3_600_000;
    expect([l.take('A'), l.take('A'), l.take('A')].map((r) => r.ok)).toEqual([true, true, false]);
  });
});
