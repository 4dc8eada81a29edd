// The batch task's token bucket (functions/pull-secret-job/batch/token-bucket.ts) on a clock the
// test moves: its burst, its rate, and the waits its reservations give, in the order asked.
import { TokenBucket } from '../../../functions/pull-secret-job/batch/token-bucket';

describe('TokenBucket', () => {
  it('starts full: a burst of `capacity` tokens goes at once, the next waits for its refill', () => {
    const bucket = new TokenBucket(2, 3, 0);
    expect([bucket.reserve(1, 0), bucket.reserve(1, 0), bucket.reserve(1, 0)]).toEqual([0, 0, 0]);
    expect(bucket.reserve(1, 0)).toBe(500);
  });

  it('reserves into debt: each caller learns its wait, in the order asked, at the rate', () => {
    // 1 token a second, a burst of 2: the first reservation of 2 goes at once, the next wait 2 s, 4 s.
    const bucket = new TokenBucket(1, 2, 0);
    expect(bucket.reserve(2, 0)).toBe(0);
    expect(bucket.reserve(2, 0)).toBe(2_000);
    expect(bucket.reserve(2, 0)).toBe(4_000);
    // The debt is 4; a second later one token has come back: 3 s to go.
    expect(bucket.reserve(0, 1_000)).toBe(3_000);
  });

  it('refills at its rate and never above its capacity', () => {
    const bucket = new TokenBucket(10, 5, 0);
    expect(bucket.reserve(5, 0)).toBe(0);
    // An hour idle refills 5 tokens, not 36,000: the sixth waits a tenth of a second.
    expect(bucket.reserve(5, 3_600_000)).toBe(0);
    expect(bucket.reserve(1, 3_600_000)).toBe(100);
  });

  it('gives, over a long run, the rate plus one burst and no more', () => {
    const bucket = new TokenBucket(0.5, 3, 0); // 30 a minute, a burst of 3
    let now = 0;
    let calls = 0;
    for (;;) {
      now += bucket.reserve(1, now);
      if (now >= 600_000) break;
      calls++;
    }
    // Within ten minutes: the burst of 3 at 0, then one every 2 s from 2 s to 598 s (299).
    expect(calls).toBe(302);
  });

  it('refuses a rate or a capacity that could never give a token', () => {
    expect(() => new TokenBucket(0, 1, 0)).toThrow(/rate > 0/);
    expect(() => new TokenBucket(Number.POSITIVE_INFINITY, 1, 0)).toThrow(/finite rate/);
    expect(() => new TokenBucket(1, 0, 0)).toThrow(/capacity > 0/);
    expect(() => new TokenBucket(1, 1, 0).reserve(-1, 0)).toThrow(/count >= 0/);
  });
});
