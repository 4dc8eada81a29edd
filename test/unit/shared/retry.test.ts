import { backoffDelayMs } from '../../../shared/retry/backoff';
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
