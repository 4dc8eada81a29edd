import { backoffDelayMs, type RetryPolicy } from './backoff';

/** What withRetry needs besides the operation. */
export interface RetryOptions {
  readonly policy: RetryPolicy;
  /** Whether a failure is worth another attempt. */
  readonly isRetryable: (error: unknown) => boolean;
  /** Called before each wait, e.g. to log the retry. */
  readonly onRetry?: (info: { error: unknown; retry: number; delayMs: number }) => void;
  /** Injectable for tests. */
  readonly sleep?: (ms: number) => Promise<void>;
  readonly random?: () => number;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `operation` until it succeeds, fails with a non-retryable error, or runs out of attempts;
 * then rethrows the last error unchanged so the caller can add context. `attempt` starts at 1.
 */
export async function withRetry<T>(
  operation: (attempt: number) => Promise<T>,
  options: RetryOptions,
): Promise<T> {
  const sleep = options.sleep ?? realSleep;
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation(attempt);
    } catch (error) {
      if (attempt >= options.policy.attempts || !options.isRetryable(error)) throw error;
      const delayMs = backoffDelayMs(attempt, options.policy, options.random);
      options.onRetry?.({ error, retry: attempt, delayMs });
      await sleep(delayMs);
    }
  }
}
