import { MAX_BUCKETS, TokenBucketLimiter } from '../../../http/middleware/rateLimit';

describe('token bucket limiter: bounded memory', () => {
  it('forgets the full buckets past MAX_BUCKETS, keeping the ones in use', () => {
    let now = 0;
    const limiter = new TokenBucketLimiter({ perMinute: 60, burst: 2, now: () => now });
    limiter.take('busy');
    limiter.take('busy');
    expect(limiter.take('busy').ok).toBe(false);
    for (let i = 0; i < MAX_BUCKETS - 1; i++) limiter.take(`addr-${i}`);
    expect(limiter.size).toBe(MAX_BUCKETS);
    // Half a second later: the address buckets (one token used) are not full yet, 'busy' neither.
    now = 500;
    limiter.take('one-more');
    expect(limiter.size).toBe(1);
    expect(limiter.take('busy').ok).toBe(true);
  });

  it('drops only the full buckets when some are', () => {
    let now = 0;
    const limiter = new TokenBucketLimiter({ perMinute: 60, burst: 1, now: () => now });
    limiter.take('busy');
    now = 10;
    for (let i = 0; i < MAX_BUCKETS - 1; i++) limiter.take(`addr-${i}`);
    // 1.005 s later 'busy' (taken at 0) is full again, the others (taken at 10 ms) are not.
    now = 1005;
    limiter.take('new');
    expect(limiter.size).toBe(MAX_BUCKETS);
    expect(limiter.take('addr-1').ok).toBe(false);
  });
});
