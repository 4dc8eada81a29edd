import { backoffDelayMs } from '../../../shared/retry/backoff';
import { parseRetryAfter } from '../../../shared/retry/retry-after';
import { withRetry } from '../../../shared/retry/with-retry';

const policy = { attempts: 4, baseDelayMs: 100, maxDelayMs: 1000 };

describe('backoffDelayMs', () => {
  it('grows exponentially with equal jitter and is capped', () => {
    expect(backoffDelayMs(1, policy, () => 0)).toBe(50);
    expect(backoffDelayMs(1, policy, () => 1)).toBe(100);
    expect(backoffDelayMs(2, policy, () => 0)).toBe(100);
    expect(backoffDelayMs(3, policy, () => 1)).toBe(400);
    expect(backoffDelayMs(10, policy, () => 1)).toBe(1000);
    expect(backoffDelayMs(10, policy, () => 0)).toBe(500);
  });
});

describe('withRetry', () => {
  const noSleep = { sleep: async () => undefined };

  it('retries retryable failures until success', async () => {
    let calls = 0;
    const result = await withRetry(
      async (attempt) => {
        calls++;
        if (attempt < 3) throw new Error('flaky');
        return 'ok';
      },
      { policy, isRetryable: () => true, ...noSleep },
    );
    expect(result).toBe('ok');
    expect(calls).toBe(3);
  });

  it('stops at the first non-retryable failure', async () => {
    let calls = 0;
    await expect(
      withRetry(
        async () => {
          calls++;
          throw new Error('permanent');
        },
        { policy, isRetryable: () => false, ...noSleep },
      ),
    ).rejects.toThrow('permanent');
    expect(calls).toBe(1);
  });

  it('gives up after the configured attempts and rethrows the last error', async () => {
    const delays: number[] = [];
    let calls = 0;
    await expect(
      withRetry(
        async (attempt) => {
          calls++;
          throw new Error(`attempt ${attempt}`);
        },
        {
          policy,
          isRetryable: () => true,
          onRetry: ({ delayMs }) => delays.push(delayMs),
          ...noSleep,
          random: () => 0.5,
        },
      ),
    ).rejects.toThrow('attempt 4');
    expect(calls).toBe(4);
    expect(delays).toEqual([75, 150, 300]);
  });
});

describe('withRetry with a requested delay (Retry-After)', () => {
  const failing = (requested: number | undefined) => {
    const delays: number[] = [];
    let calls = 0;
    const run = withRetry(
      async () => {
        calls++;
        throw new Error('busy');
      },
      {
        policy,
        isRetryable: () => true,
        requestedDelayMs: () => requested,
        onRetry: ({ delayMs }) => delays.push(delayMs),
        sleep: async () => undefined,
        random: () => 0.5,
      },
    );
    return { run, delays, calls: () => calls };
  };

  it('waits what the server asked when longer than the backoff', async () => {
    const { run, delays } = failing(800);
    await expect(run).rejects.toThrow('busy');
    expect(delays).toEqual([800, 800, 800]);
  });

  it('never waits less than its own backoff (jitter as usual)', async () => {
    const { run, delays } = failing(0);
    await expect(run).rejects.toThrow('busy');
    expect(delays).toEqual([75, 150, 300]);
  });

  it('gives up at once when the server asks for more than the policy allows', async () => {
    const { run, delays, calls } = failing(1001);
    await expect(run).rejects.toThrow('busy');
    expect(calls()).toBe(1);
    expect(delays).toEqual([]);
  });
});

describe('parseRetryAfter', () => {
  const now = new Date('2026-11-23T12:00:00Z');
  it.each<[string | null, number | undefined]>([
    ['3', 3000],
    [' 0 ', 0],
    ['Mon, 23 Nov 2026 12:00:07 GMT', 7000],
    ['Mon, 23 Nov 2026 11:59:00 GMT', 0],
    [null, undefined],
    ['', undefined],
    ['-1', undefined],
    ['1.5', undefined],
    ['soon', undefined],
    ['2026-11-23T12:00:07Z', undefined],
  ])('%j -> %j ms', (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });
});
